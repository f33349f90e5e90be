#!/usr/bin/env node
// Runs `tuttid` from its TypeScript sources (tests need no build), as cli/bin/tuttid.js runs
// the compiled one: an operator command (`status`, `dashboard`), else the daemon. Start it
// with `node -C tutti-source --import <the kit's TS_LOADER> <this file> [args]`.
const { runOperatorCommand } = await import('@tutti/cli/operator');
const argv = process.argv.slice(2);
const code = await runOperatorCommand(argv);
if (code === undefined) {
  const { run } = await import('@tutti/cli/tuttid');
  await run(argv);
} else {
  process.exitCode = code;
}
