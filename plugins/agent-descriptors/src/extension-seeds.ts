/**
 * A signed extension's static files in the session home: its descriptor's `home.seed`
 * entries of the form `{"file": "<path in the package>"}` become the text of that file.
 * Only files the package declared (and the installer verified as data) are read, from the
 * extension's own folder, at most 1 MiB each, as UTF-8 text.
 */
import { lstat, readFile } from 'node:fs/promises';
import { isAbsolute, join, normalize } from 'node:path';
import type { InstalledExtension } from '@tutti/core';
import type { AgentDescriptorFile } from './descriptor-schema.js';
import { badDescriptor } from './load-descriptors.js';

/** The largest package file a seed reads. */
const MAX_SEED_BYTES = 1024 * 1024;

/** `parsed` with each `{file}` seed read from `extension`'s package (`file` names the descriptor). */
export async function withExtensionSeeds(
  parsed: AgentDescriptorFile,
  extension: InstalledExtension,
  file: string,
): Promise<AgentDescriptorFile> {
  const home = parsed.home;
  if (!home) return parsed;
  const declared = new Set(extension.files.map((path) => normalize(path)));
  const seed: Record<string, string> = {};
  for (const [name, value] of Object.entries(home.seed)) {
    if (typeof value === 'string') {
      seed[name] = value;
      continue;
    }
    const field = `home.seed.${name}`;
    const path = normalize(value.file);
    if (isAbsolute(path) || path.startsWith('..') || !declared.has(path)) {
      throw badDescriptor(
        file,
        field,
        `"${value.file}" is not a file the package declared: list it in tutti-extension.json "files"`,
      );
    }
    const at = join(extension.dir, path);
    const stat = await lstat(at).catch(() => undefined);
    if (!stat?.isFile() || stat.size > MAX_SEED_BYTES) {
      throw badDescriptor(
        file,
        field,
        `"${value.file}" is not a regular file of at most ${MAX_SEED_BYTES} bytes in the installed package: install the extension again`,
      );
    }
    seed[name] = await readFile(at, 'utf8');
  }
  return { ...parsed, home: { ...home, seed } };
}
