#!/usr/bin/env node
// Runs `tuttid` from its TypeScript sources (tests need no build), as cli/bin/tuttid.js runs
// the compiled one: an operator command (`status`, `dashboard`), else the daemon. Start it
// with `node -C tutti-source --import ./test/fixtures/upstream/ts-loader.mjs <this file> [args]`.
const { runOperatorCommand } = await import('../../cli/src/operator/index.ts');
const argv = process.argv.slice(2);
const code = await runOperatorCommand(argv);
if (code === undefined) {
  const { run } = await import('../../cli/src/tuttid.ts');
  await run(argv);
} else {
  process.exitCode = code;
}
