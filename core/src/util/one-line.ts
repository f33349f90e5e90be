/** Text from elsewhere (an upstream's error, a thrown value) as it may sit inside a message. */
import { cutText } from './cut-text.js';

/** Longest text carried into a client-facing message. */
const LIMIT = 300;

/**
 * `text` on one line (runs of whitespace become one space), at most 300 characters (then
 * cut, ending in "…"); `fallback` when nothing is left.
 * @example oneLine('upstream closed:\n socket hang up') // 'upstream closed: socket hang up'
 */
export function oneLine(text: string, fallback = 'no reason given'): string {
  const line = text.replace(/\s+/g, ' ').trim() || fallback;
  return cutText(line, LIMIT);
}
