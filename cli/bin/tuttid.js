#!/usr/bin/env node
// The `tuttid` daemon: runs the compiled entry in ../dist/tuttid.js.
import { run } from '../dist/tuttid.js';

await run(process.argv.slice(2));
