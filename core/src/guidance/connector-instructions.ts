/**
 * The `instructions` of the `connector` MCP server, made of the instructions each ready
 * connector's own upstream server sent (its `initialize` or `server/discover` result).
 * Each connector's text becomes one block that opens with its key, `<key>: <first line>`,
 * with every further line indented by two spaces: only a block's first line starts at the
 * margin, so no connector can write a line that reads as another connector's block.
 * Line by line the text is sanitized like the guidance (no URLs, paths, secret-looking
 * values, control or bidi characters, no blank lines) and capped per connector; the
 * blocks, in key order, are capped together (docs/mcp-surfaces.md#instructions).
 */
import { sanitizeText } from './sanitize-text.js';

/** Most characters of one connector's text, after sanitizing (its line breaks count). */
export const INSTRUCTIONS_PER_CONNECTOR = 1_000;

/** Most characters of the whole `instructions` text, the note on what was left out included. */
export const INSTRUCTIONS_TOTAL = 8_000;

/** Most characters of an upstream's text read at all: far more than a block can hold. */
const READ_AT_MOST = 16 * INSTRUCTIONS_PER_CONNECTOR;

/** Every line break an agent may see as one (CR LF, LF, CR, NEL, LS, PS). */
const LINE_BREAK = /\r\n|[\n\r\u0085\u2028\u2029]/;

/** How a block's lines after the first start. */
const INDENT = '  ';

/**
 * The head of `text` up to `max` characters, ending before the last whitespace in it, so
 * that no cut-off value (half a URL or secret, which sanitizing may no longer recognize) is kept.
 */
function headOf(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = text.slice(0, max);
  const end = head.search(/\s\S*$/);
  return end < 0 ? '' : head.slice(0, end);
}

/** `text` cut to at most `max` characters, ending in "…" when cut (never half a surrogate pair). */
function capped(text: string, max: number): string {
  if (text.length <= max) return text;
  let end = max - 1;
  const last = text.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${text.slice(0, end).trimEnd()}…`;
}

/**
 * The block of connector `key` (a valid key) for its upstream's `instructions`: sanitized,
 * at most {@link INSTRUCTIONS_PER_CONNECTOR} characters of text, its first line after
 * `<key>: `, the others indented by two spaces; undefined when nothing is left of it.
 * @example instructionsBlock('github', 'Search first.\nThen open.') // 'github: Search first.\n  Then open.'
 */
export function instructionsBlock(key: string, instructions: unknown): string | undefined {
  if (typeof instructions !== 'string') return undefined;
  const lines: string[] = [];
  let length = -1;
  for (const raw of headOf(instructions, READ_AT_MOST).split(LINE_BREAK)) {
    const line = sanitizeText(raw, INSTRUCTIONS_PER_CONNECTOR);
    if (line === '') continue;
    lines.push(line);
    length += line.length + 1;
    if (length >= INSTRUCTIONS_PER_CONNECTOR) break;
  }
  if (lines.length === 0) return undefined;
  const text = capped(lines.join('\n'), INSTRUCTIONS_PER_CONNECTOR);
  return `${key}: ${text.replaceAll('\n', `\n${INDENT}`)}`;
}

/** The last line when `count` blocks were left out; it starts with `(`, which no key does. */
function leftOutNote(count: number): string {
  const connectors = count === 1 ? '1 more connector is' : `${count} more connectors are`;
  return `(The instructions of ${connectors} left out: together they are capped at ${INSTRUCTIONS_TOTAL} characters.)`;
}

/** Room the note takes at most, its line break included. */
const NOTE_ROOM = leftOutNote(Number.MAX_SAFE_INTEGER).length + 1;

/**
 * The server's `instructions` of `blocks` (already in key order), one per line; undefined
 * when there are none. Over {@link INSTRUCTIONS_TOTAL} characters, the blocks that fit are
 * kept in order up to the first that does not; it and all after it are left out, and a last
 * line says how many.
 */
export function joinInstructions(blocks: readonly string[]): string | undefined {
  if (blocks.length === 0) return undefined;
  const all = blocks.join('\n');
  if (all.length <= INSTRUCTIONS_TOTAL) return all;
  const kept: string[] = [];
  let length = 0;
  for (const block of blocks) {
    const next = length + block.length + (kept.length > 0 ? 1 : 0);
    if (next > INSTRUCTIONS_TOTAL - NOTE_ROOM) break;
    kept.push(block);
    length = next;
  }
  return [...kept, leftOutNote(blocks.length - kept.length)].join('\n');
}
