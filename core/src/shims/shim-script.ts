/**
 * Renders the text of a connector's shim: a POSIX `sh` script that `exec`s the release's
 * CLI entrypoint (so argv, stdio, signals and the exit code pass unchanged) and its
 * Windows `.cmd` twin. Both carry the route generation on a marker line.
 *
 * A shim holds no secret. A connector that takes a credential gets it when the shim runs:
 * read from the store's 0600 secret file (file store), or printed by a reader program run
 * with absolute paths (OS keychain store, docs/credential-store.md). Either is gone with
 * the credential: once a connector is uninstalled or its credential cleared, its shim (if
 * still there) finds nothing and refuses to run (exit 78), and a changed credential
 * reaches the next run at once.
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

/**
 * Where a shim finds the connector's credential when it runs: `env` is the environment
 * variable that carries it to the CLI; `file` the absolute path of the file holding the
 * bare secret on its first line, or `command` + `args` (absolute) a program that prints
 * it to stdout and exits 0, or prints why not to stderr and exits non-zero.
 */
export type ShimCredential =
  | { env: string; file: string }
  | { env: string; command: string; args: readonly string[] };

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
    if ('file' in credential) {
      if (forbidden.test(credential.file)) {
        throw invalidShimInput(key, `the credential file path contains ${what}`);
      }
    } else if ([credential.command, ...credential.args].some((part) => forbidden.test(part))) {
      throw invalidShimInput(key, `the credential reader contains ${what}`);
    } else if (credential.command === '') {
      throw invalidShimInput(key, 'the credential reader command is empty');
    }
  }
}

/** What a shim (or its keychain reader) prints when connector `key` has no credential. */
export function noCredentialMessage(key: string): string {
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
  if (credential && 'file' in credential) {
    lines.push(
      `if ! IFS= read -r ${credential.env} < ${shQuote(credential.file)} 2>/dev/null || [ -z "$${credential.env}" ]; then`,
      `  printf '%s\\n' ${shQuote(noCredentialMessage(input.key))} >&2`,
      `  exit ${SHIM_NO_CREDENTIAL_EXIT}`,
      'fi',
      `export ${credential.env}`,
    );
  } else if (credential) {
    // The reader says why on stderr when it has nothing (it exits 78 then).
    const reader = [credential.command, ...credential.args].map(shQuote).join(' ');
    lines.push(
      `if ! ${credential.env}=$(${reader}); then exit ${SHIM_NO_CREDENTIAL_EXIT}; fi`,
      `if [ -z "$${credential.env}" ]; then`,
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
    lines.push(`set "${credential.env}="`);
    if ('file' in credential) {
      const file = credential.file.replace(/%/g, '%%');
      lines.push(`if exist "${file}" set /p "${credential.env}=" < "${file}"`);
    } else {
      // cmd /c drops the first and last quote of a line that starts with one: wrap it once more.
      const reader = [credential.command, ...credential.args].map(cmdQuote).join(' ');
      lines.push(
        `for /f "usebackq delims=" %%L in (\`"${reader}"\`) do set "${credential.env}=%%L"`,
      );
    }
    lines.push(
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
