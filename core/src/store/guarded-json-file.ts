/**
 * A JSON state file that survives damage: every successful write also refreshes
 * `<file>.last-good`; a read that finds the file corrupt or missing falls back to that
 * copy, restores it, keeps the damaged file aside and reports the problem.
 */
import { readFile, rename } from 'node:fs/promises';
import type { z } from 'zod';
import { TuttiError } from '../errors/index.js';
import { writeFileAtomic } from './atomic-write.js';

/** Suffix of the copy written after each successful write. */
export const LAST_GOOD_SUFFIX = '.last-good';

/** What {@link readGuardedJson} found. */
export interface GuardedRead<T> {
  readonly value: T;
  /** Set when the file was damaged and the last good copy was restored. */
  readonly problem?: TuttiError;
}

type Attempt<T> = { ok: true; value: T } | { ok: false; missing: boolean; reason: string };

async function attempt<T>(file: string, schema: z.ZodType<T>): Promise<Attempt<T>> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: false, missing: true, reason: 'file missing' };
    return { ok: false, missing: false, reason: code ?? (error as Error).message };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, missing: false, reason: (error as Error).message };
  }
  const parsed = schema.safeParse(json);
  if (parsed.success) return { ok: true, value: parsed.data };
  const first = parsed.error.issues[0];
  const where = first && first.path.length > 0 ? `${first.path.join('.')}: ` : '';
  return { ok: false, missing: false, reason: `${where}${first?.message ?? 'invalid content'}` };
}

/** Writes `value` to `file` and then to its last-good copy, each atomically. */
export async function writeGuardedJson(file: string, value: unknown): Promise<void> {
  const text = `${JSON.stringify(value, null, 2)}\n`;
  await writeFileAtomic(file, text);
  await writeFileAtomic(file + LAST_GOOD_SUFFIX, text);
}

/**
 * Reads `file` validated by `schema`. Missing file and missing copy: `empty`. Damaged
 * file with a good copy: the copy, restored, with a TUTTI_ERR_STORE_STATE_RESTORED
 * problem. Damaged file and no good copy: throws TUTTI_ERR_STORE_STATE_CORRUPT.
 */
export async function readGuardedJson<T>(
  file: string,
  schema: z.ZodType<T>,
  empty: T,
): Promise<GuardedRead<T>> {
  const main = await attempt(file, schema);
  if (main.ok) return { value: main.value };
  const copy = await attempt(file + LAST_GOOD_SUFFIX, schema);
  if (main.missing && !copy.ok && copy.missing) return { value: empty };
  if (!copy.ok) {
    throw new TuttiError('TUTTI_ERR_STORE_STATE_CORRUPT', { file, reason: main.reason });
  }
  let kept = '(nothing to keep: the file was missing)';
  if (!main.missing) {
    kept = `${file}.corrupt-${new Date().toISOString().replace(/[:.]/g, '-')}`;
    await rename(file, kept);
  }
  await writeFileAtomic(file, `${JSON.stringify(copy.value, null, 2)}\n`);
  const problem = new TuttiError('TUTTI_ERR_STORE_STATE_RESTORED', {
    file,
    reason: main.reason,
    kept,
  });
  return { value: copy.value, problem };
}
