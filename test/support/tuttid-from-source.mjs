#!/usr/bin/env node
// Runs `tuttid` from its TypeScript sources (tests need no build). Start it with
// `node -C tutti-source --import ./test/fixtures/upstream/ts-loader.mjs <this file> [args]`.
const { run } = await import('../../cli/src/tuttid.ts');
await run(process.argv.slice(2));
