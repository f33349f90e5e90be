/**
 * Writes cli/oclif.manifest.json from the built commands in cli/dist (run after `tsc -b`):
 * oclif then reads one file instead of finding and loading every command, and the bin's
 * fast path reads the flags of `connector available` from it. A test fails while the
 * committed file differs from what the commands give.
 */
import { writeFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { Plugin } from '@oclif/core';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The manifest oclif builds from the commands themselves, ignoring any manifest file. */
export async function commandsManifest() {
  const plugin = new Plugin({
    root,
    type: 'core',
    isRoot: true,
    ignoreManifest: true,
    errorOnManifestCreate: true,
  });
  await plugin.load();
  return plugin.manifest;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const text = `${JSON.stringify(await commandsManifest(), null, 2)}\n`;
  // `--print` writes it to stdout instead (the test compares it with the committed file).
  if (process.argv.includes('--print')) process.stdout.write(text);
  else await writeFile(new URL('../oclif.manifest.json', import.meta.url), text);
}
