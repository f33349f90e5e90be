/** Waits on the processes a test started. */
import { isProcessGroupAlive } from '@tutti/core/internal';

/**
 * Resolves true once `pid`'s process group has no live process left; false when one is
 * still alive after 20 s (a bound for a busy machine: it resolves as soon as the group ends).
 */
export async function groupGone(pid: number | undefined): Promise<boolean> {
  if (pid === undefined) return true;
  for (let i = 0; i < 800; i++) {
    if (!isProcessGroupAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return false;
}
