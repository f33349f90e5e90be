/**
 * An upstream's own words (the message of its JSON-RPC error, an SDK complaint about its
 * answer) as they may appear in a call error's message: one line, bounded, with bearer
 * tokens and credential assignments masked. The connector's own secret is not known here;
 * the upstream chose to say what it said to the caller of its tool.
 */
import { createSecretRedactor } from '../process/index.js';
import { oneLine } from '../util/one-line.js';

/** A redactor with no registered secrets: only its patterns apply. */
const patterns = createSecretRedactor();

/**
 * `text` fit for the `{reason}` of an upstream call error.
 * @example upstreamReason('bad token: Bearer abcdef123456\n') // 'bad token: Bearer [redacted]'
 */
export function upstreamReason(text: unknown): string {
  return oneLine(patterns.redact(text === undefined || text === null ? '' : String(text)));
}
