/**
 * Quoting for the generated shim scripts: POSIX `sh` single quotes and Windows `cmd`
 * double quotes. Every path, argument and environment value goes through these.
 */
import { TuttiError } from '../errors/index.js';

/** Quotes `value` for POSIX `sh`: single quotes, each `'` written as `'\''`. */
export function shQuote(value: string): string {
  return `'${value.replace(/'/g, `'\\''`)}'`;
}

/**
 * Quotes one argument for a `.cmd` script: MSVCRT rules (backslashes before a quote
 * doubled, `"` as `\"`), inside double quotes, with `%` doubled so cmd does not expand it.
 */
export function cmdQuote(value: string): string {
  const escaped = value
    .replace(/(\\*)"/g, (_whole, slashes: string) => `${slashes}${slashes}\\"`)
    .replace(/(\\+)$/, (slashes: string) => slashes + slashes);
  return `"${escaped.replace(/%/g, '%%')}"`;
}

/** The error refusing a shim for connector `key`; `reason` never holds a value. */
export function invalidShimInput(key: string, reason: string): TuttiError {
  return new TuttiError('TUTTI_ERR_SHIM_INVALID_INPUT', { key, reason });
}
