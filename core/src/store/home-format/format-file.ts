/**
 * `<home>/format.json`, `{"version": N}`: the version of the home's layout. A home without
 * it has the layout of the releases from before the file existed: version 1. It holds
 * nothing secret, so it is written like the home's other state files (atomically, 0644,
 * in the 0700 home), and only by the migration runner, once the layout it names is
 * complete. Fields other than `version` are kept for later releases and ignored here, so
 * an older daemon can always read which version a newer one wrote.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { TuttiError } from '../../errors/index.js';
import { writeFileAtomic } from '../atomic-write.js';

/** Name of the format file in the home. */
export const HOME_FORMAT_FILE = 'format.json';

/** The layout version of a home that has no format file. */
export const UNVERSIONED_HOME = 1;

const formatFileSchema = z.looseObject({ version: z.number().int().min(UNVERSIONED_HOME) });

/** Path of `home`'s format file. */
export function homeFormatPath(home: string): string {
  return join(home, HOME_FORMAT_FILE);
}

/**
 * The layout version `home`'s format file names, or undefined when it has none. Throws
 * TUTTI_ERR_HOME_FORMAT_UNREADABLE when the file exists but names no version.
 */
export async function readHomeFormat(home: string): Promise<number | undefined> {
  const file = homeFormatPath(home);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    throw new TuttiError('TUTTI_ERR_HOME_FORMAT_UNREADABLE', {
      file,
      reason: code ?? 'read failed',
    });
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new TuttiError('TUTTI_ERR_HOME_FORMAT_UNREADABLE', { file, reason: 'not valid JSON' });
  }
  const parsed = formatFileSchema.safeParse(json);
  if (!parsed.success) {
    throw new TuttiError('TUTTI_ERR_HOME_FORMAT_UNREADABLE', {
      file,
      reason: `"version" is not a whole number from ${UNVERSIONED_HOME} up`,
    });
  }
  return parsed.data.version;
}

/** Records that `home` has the layout `version`, atomically and durably. */
export async function writeHomeFormat(home: string, version: number): Promise<void> {
  await writeFileAtomic(homeFormatPath(home), `${JSON.stringify({ version }, null, 2)}\n`);
}
