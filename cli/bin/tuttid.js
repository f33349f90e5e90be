#!/usr/bin/env node
// The `tuttid` daemon: runs the compiled entry in ../dist/tuttid.js. The operator commands
// (`tuttid status`, `tuttid dashboard`) ask the running daemon instead, without loading it.
import { runOperatorCommand } from '../dist/operator/index.js';

const argv = process.argv.slice(2);
const code = await runOperatorCommand(argv);
if (code === undefined) {
  const { run } = await import('../dist/tuttid.js');
  await run(argv);
} else {
  process.exitCode = code;
}
