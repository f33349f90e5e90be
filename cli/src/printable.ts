/**
 * Text from a daemon (an upstream's stderr line, an error message) made safe to print in a
 * terminal: on one line, without escape sequences or other control characters, so what a
 * connector's server wrote cannot move the cursor, recolour or forge lines.
 */

// biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it removes
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * `text` on one line (newlines and tabs become spaces), every other control character `?`.
 * @example printable('red \u001b[31mtext') // 'red ?[31mtext'
 */
export function printable(text: string): string {
  return text.replace(/\r?\n|\t/g, ' ').replace(CONTROL, '?');
}
