/**
 * Renders the text of a connector's shim: a POSIX `sh` script that `exec`s the release's
 * CLI entrypoint (so argv, stdio, signals and the exit code pass unchanged) and its
 * Windows `.cmd` twin. Both carry the route generation on a marker line.
 *
 * A shim holds no secret. A connector that takes a credential gets it when the shim runs,
 * read from the store's 0600 secret file, which is deleted with the credential: once a
 * connector is uninstalled or its credential cleared, its shim (if still there) finds
 * nothing and refuses to run, and a changed credential reaches the next run at once.
 * Relative PATH entries are dropped before the `exec`, so a bare command name is never
 * found in the agent's working folder.
 */
import { cmdQuote, invalidShimInput, shQuote } from './shell-quote.js';

/** The CLI entrypoint of a connector release: a program and its fixed leading arguments. */
export interface ShimEntrypoint {
  /** Absolute path (or PATH name) of the program to run. */
  command: string;
  /** Arguments placed before the caller's own arguments. */
  args: readonly string[];
}

/** Where a shim finds the connector's credential when it runs. */
export interface ShimCredential {
  /** Environment variable that carries it to the CLI. */
  env: string;
  /** Absolute path of the file holding the bare secret on its first line. */
  file: string;
}

/** What a shim script is made of. */
export interface ShimScriptInput {
  key: string;
  generation: number;
  entrypoint: ShimEntrypoint;
  /** The credential read at run time, for a connector that takes one. */
  credential?: ShimCredential;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Marker line prefix that records the generation a shim was published for. */
export const GENERATION_MARKER = 'tutti-generation:';

/** Exit status of a shim whose connector has no credential (EX_CONFIG). */
export const SHIM_NO_CREDENTIAL_EXIT = 78;

/** The generation recorded in a shim script's text, or undefined when it has none. */
export function readGenerationMarker(text: string): number | undefined {
  const match = /^(?:#|rem) tutti-generation: (\d+)\r?$/m.exec(text);
  return match ? Number(match[1]) : undefined;
}

function checkInput(input: ShimScriptInput, forbidden: RegExp, what: string): void {
  const { key, entrypoint, credential } = input;
  if (entrypoint.command === '') throw invalidShimInput(key, 'the entrypoint command is empty');
  if (forbidden.test(entrypoint.command)) {
    throw invalidShimInput(key, `the entrypoint command contains ${what}`);
  }
  if (entrypoint.args.some((arg) => forbidden.test(arg))) {
    throw invalidShimInput(key, `an entrypoint argument contains ${what}`);
  }
  if (credential) {
    if (!ENV_NAME.test(credential.env)) {
      throw invalidShimInput(key, 'the credential environment name is not valid');
    }
    if (forbidden.test(credential.file)) {
      throw invalidShimInput(key, `the credential file path contains ${what}`);
    }
  }
}

function noCredentialMessage(key: string): string {
  return (
    `tutti-connector-${key}: connector "${key}" has no credential (it was cleared or the ` +
    'connector uninstalled): set its credential again with tutti, then retry.'
  );
}

/** Renders the POSIX `sh` shim. */
export function renderShScript(input: ShimScriptInput): string {
  checkInput(input, /\0/, 'a NUL byte');
  const lines = [
    '#!/bin/sh',
    `# ${GENERATION_MARKER} ${input.generation}`,
    `# Shim of connector "${input.key}", written by tuttid; do not edit, it is replaced on upgrade.`,
    '# It holds no secret: a credential is read from the tutti store each time it runs.',
    // Relative and empty PATH entries name the working folder: drop them.
    'set -f',
    'tutti_ifs=$IFS',
    'IFS=:',
    'tutti_path=',
    'for tutti_dir in $PATH; do',
    // biome-ignore lint/suspicious/noTemplateCurlyInString: a sh parameter expansion
    '  case $tutti_dir in /*) tutti_path=${tutti_path:+$tutti_path:}$tutti_dir ;; esac',
    'done',
    'IFS=$tutti_ifs',
    'PATH=$tutti_path',
    'export PATH',
    'unset tutti_ifs tutti_path tutti_dir',
    'set +f',
  ];
  const { credential } = input;
  if (credential) {
    lines.push(
      `if ! IFS= read -r ${credential.env} < ${shQuote(credential.file)} 2>/dev/null || [ -z "$${credential.env}" ]; then`,
      `  printf '%s\\n' ${shQuote(noCredentialMessage(input.key))} >&2`,
      `  exit ${SHIM_NO_CREDENTIAL_EXIT}`,
      'fi',
      `export ${credential.env}`,
    );
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
    'rem It holds no secret: a credential is read from the tutti store each time it runs.',
    'setlocal DisableDelayedExpansion',
    // cmd looks in the working folder before PATH unless told not to.
    'set "NoDefaultCurrentDirectoryInExePath=1"',
  ];
  const { credential } = input;
  if (credential) {
    const file = credential.file.replace(/%/g, '%%');
    lines.push(
      `set "${credential.env}="`,
      `if exist "${file}" set /p "${credential.env}=" < "${file}"`,
      `if not defined ${credential.env} (`,
      `  echo ${noCredentialMessage(input.key).replace(/[&|<>^%()]/g, (c) => `^${c}`)} 1>&2`,
      `  exit /b ${SHIM_NO_CREDENTIAL_EXIT}`,
      ')',
    );
  }
  const argv = [input.entrypoint.command, ...input.entrypoint.args].map(cmdQuote).join(' ');
  lines.push(`${argv} %*`, 'exit /b %ERRORLEVEL%', '');
  return lines.join('\r\n');
}
