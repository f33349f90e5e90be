#!/usr/bin/env node
// The `tutti` command: runs the compiled oclif commands in ../dist/commands, whatever NODE_ENV says.
import { execute, settings } from '@oclif/core';

settings.enableAutoTranspile = false;
await execute({ dir: import.meta.url });
