/**
 * Renders the text of a connector's shim: a POSIX `sh` script that `exec`s the release's
 * CLI entrypoint (so argv, stdio, signals and the exit code pass unchanged) and its
 * Windows `.cmd` twin. Both carry the route generation on a marker line.
 */
import { cmdQuote, invalidShimInput, shQuote } from './shell-quote.js';

/** The CLI entrypoint of a connector release: a program and its fixed leading arguments. */
export interface ShimEntrypoint {
  /** Absolute path (or PATH name) of the program to run. */
  command: string;
  /** Arguments placed before the caller's own arguments. */
  args: readonly string[];
}

/** What a shim script is made of. */
export interface ShimScriptInput {
  key: string;
  generation: number;
  entrypoint: ShimEntrypoint;
  /** Only the environment the connector is allowed; exported by the script. */
  env: Readonly<Record<string, string>>;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Marker line prefix that records the generation a shim was published for. */
export const GENERATION_MARKER = 'tutti-generation:';

/** The generation recorded in a shim script's text, or undefined when it has none. */
export function readGenerationMarker(text: string): number | undefined {
  const match = /^(?:#|rem) tutti-generation: (\d+)\r?$/m.exec(text);
  return match ? Number(match[1]) : undefined;
}

function checkInput(input: ShimScriptInput, forbidden: RegExp, what: string): void {
  const { key, entrypoint, env } = input;
  if (entrypoint.command === '') throw invalidShimInput(key, 'the entrypoint command is empty');
  if (forbidden.test(entrypoint.command)) {
    throw invalidShimInput(key, `the entrypoint command contains ${what}`);
  }
  if (entrypoint.args.some((arg) => forbidden.test(arg))) {
    throw invalidShimInput(key, `an entrypoint argument contains ${what}`);
  }
  for (const [name, value] of Object.entries(env)) {
    if (!ENV_NAME.test(name)) throw invalidShimInput(key, 'an environment name is not valid');
    if (forbidden.test(value)) {
      throw invalidShimInput(key, `environment variable ${name} contains ${what}`);
    }
  }
}

/** Renders the POSIX `sh` shim. */
export function renderShScript(input: ShimScriptInput): string {
  checkInput(input, /\0/, 'a NUL byte');
  const lines = [
    '#!/bin/sh',
    `# ${GENERATION_MARKER} ${input.generation}`,
    `# Shim of connector "${input.key}", written by tuttid; do not edit, it is replaced on upgrade.`,
    '# It may hold secret values of the connector environment: that is allowed because the file',
    "# is mode 0700 and lives in the user's own tutti state directory.",
  ];
  for (const name of Object.keys(input.env).sort()) {
    lines.push(`${name}=${shQuote(input.env[name]!)}`, `export ${name}`);
  }
  const argv = [input.entrypoint.command, ...input.entrypoint.args].map(shQuote).join(' ');
  lines.push(`exec ${argv} "$@"`, '');
  return lines.join('\n');
}

/** Renders the Windows `.cmd` twin of the shim; a cmd script cannot carry line breaks. */
export function renderCmdScript(input: ShimScriptInput): string {
  checkInput(input, /[\0\r\n]/, 'a NUL byte or a line break');
  const lines = [
    '@echo off',
    `rem ${GENERATION_MARKER} ${input.generation}`,
    `rem Shim of connector "${input.key}", written by tuttid; do not edit.`,
    'rem It may hold secret values of the connector environment; it lives in the user state dir.',
    'setlocal DisableDelayedExpansion',
  ];
  for (const name of Object.keys(input.env).sort()) {
    lines.push(`set "${name}=${input.env[name]!.replace(/%/g, '%%')}"`);
  }
  const argv = [input.entrypoint.command, ...input.entrypoint.args].map(cmdQuote).join(' ');
  lines.push(`${argv} %*`, 'exit /b %ERRORLEVEL%', '');
  return lines.join('\r\n');
}
