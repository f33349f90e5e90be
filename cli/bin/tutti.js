#!/usr/bin/env node
// The `tutti` command. `tutti connector available` is answered without loading oclif when
// it can be (../dist/fast-path.js); everything else runs the compiled oclif commands in
// ../dist/commands, whatever NODE_ENV says.
import { runWithoutOclif } from '../dist/fast-path.js';

if (!(await runWithoutOclif(process.argv.slice(2)))) {
  const { execute, settings } = await import('@oclif/core');
  settings.enableAutoTranspile = false;
  await execute({ dir: import.meta.url });
}
