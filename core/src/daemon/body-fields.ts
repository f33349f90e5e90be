/**
 * Fields of control API bodies that reach the file system or a spawned process: checked
 * here, so a value the system would refuse (a relative path, a NUL character, an
 * environment name with "=") answers 400 naming the field instead of failing later.
 */
import { constants } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import { isAbsolute } from 'node:path';
import { z } from 'zod';
import { TuttiError } from '../errors/index.js';

/** Text a system call takes: no NUL character. */
export const systemText = z.string().refine((text) => !text.includes('\0'), {
  message: 'must not hold a NUL character',
});

/** An absolute path. */
export const absolutePath = systemText.min(1).refine(isAbsolute, 'must be absolute');

/** Environment variables: names without "=", and no NUL anywhere. */
export const environment = z
  .record(z.string(), systemText)
  .refine((env) => Object.keys(env).every((name) => /^[^=\0]+$/.test(name)), {
    message: 'a variable name must be non-empty, without "=" or a NUL character',
  });

/**
 * Checks that `path` (the body field `field`) is a folder the daemon may enter, else throws
 * TUTTI_ERR_CONTROL_BAD_REQUEST saying what is there instead.
 */
export async function checkFolder(field: string, path: string): Promise<void> {
  const problem = await folderProblem(path);
  if (problem) throw new TuttiError('TUTTI_ERR_CONTROL_BAD_REQUEST', { field, problem });
}

/** What keeps the daemon from entering the folder `path`, or undefined. */
async function folderProblem(path: string): Promise<string | undefined> {
  try {
    if (!(await stat(path)).isDirectory()) return 'it is not a folder';
    await access(path, constants.X_OK);
    return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM') return 'the daemon may not enter it';
    if (code === 'ENOENT' || code === 'ENOTDIR') return 'no folder is at that path';
    return `it cannot be read (${code ?? 'error'})`;
  }
}
