/** Waits on the processes a test started. */
import { isProcessGroupAlive } from '@tutti/core/internal';
import { WAIT_BOUND_MS } from './waits.js';

/**
 * Resolves true once `pid`'s process group has no live process left; false when one is
 * still alive after the kit's wait bound (it resolves as soon as the group ends).
 */
export async function groupGone(pid: number | undefined): Promise<boolean> {
  if (pid === undefined) return true;
  const deadline = Date.now() + WAIT_BOUND_MS;
  while (Date.now() < deadline) {
    if (!isProcessGroupAlive(pid)) return true;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return !isProcessGroupAlive(pid);
}
