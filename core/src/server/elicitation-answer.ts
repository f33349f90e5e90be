/**
 * The one check of what an agent answered to a relayed elicitation, before it goes back
 * upstream: an agent is as untrusted as an upstream. An answer is an action and, only when
 * it accepts a form, flat content (string, number, boolean or list of strings per member,
 * as the form schemas of MCP allow), bounded in members and sizes. Anything else is no
 * answer, and the caller answers the upstream `cancel`.
 */
import type { ElicitationAnswer, ElicitationMode } from '../contracts/index.js';
import { isPlainObject } from '../util/objects.js';

/** Most members of accepted content. */
export const MAX_CONTENT_MEMBERS = 64;
/**
 * Longest member name and string value (as the upstream client takes them: an answer taken
 * here is never turned into `cancel` there), and most strings in one list (UTF-16 units).
 */
export const MAX_CONTENT_KEY_LENGTH = 256;
export const MAX_CONTENT_STRING_LENGTH = 16 * 1024;
export const MAX_CONTENT_LIST_LENGTH = 64;

const ACTIONS = new Set(['accept', 'decline', 'cancel']);

function isContentValue(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
      return value.length <= MAX_CONTENT_STRING_LENGTH;
    case 'number':
      return Number.isFinite(value);
    case 'boolean':
      return true;
    default:
      return (
        Array.isArray(value) &&
        value.length <= MAX_CONTENT_LIST_LENGTH &&
        value.every((item) => typeof item === 'string' && item.length <= MAX_CONTENT_STRING_LENGTH)
      );
  }
}

/** `content` as flat, bounded form content (a copy), or undefined when it is not one. */
function contentOf(content: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(content)) return undefined;
  const keys = Object.keys(content);
  if (keys.length > MAX_CONTENT_MEMBERS) return undefined;
  const copy: Record<string, unknown> = {};
  for (const key of keys) {
    const value = content[key];
    if (key.length > MAX_CONTENT_KEY_LENGTH || !isContentValue(value)) return undefined;
    // A null-prototype-safe copy: `__proto__` as a member name stays a member.
    Object.defineProperty(copy, key, {
      value: Array.isArray(value) ? [...value] : value,
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return copy;
}

/**
 * The answer an agent's elicitation result stands for, or undefined when it is not a valid
 * one. `content` is kept only when a form is accepted; on a decline or cancel, and in URL
 * mode, it is dropped (the SDKs send it "typically omitted", some as null).
 * @example elicitationAnswerOf({ action: 'accept', content: { confirm: true } }, 'form')
 */
export function elicitationAnswerOf(
  result: unknown,
  mode: ElicitationMode,
): ElicitationAnswer | undefined {
  if (!isPlainObject(result)) return undefined;
  const action = result.action;
  if (typeof action !== 'string' || !ACTIONS.has(action)) return undefined;
  if (action !== 'accept' || mode === 'url') {
    return { action: action as ElicitationAnswer['action'] };
  }
  if (result.content === undefined || result.content === null) return { action: 'accept' };
  const content = contentOf(result.content);
  return content === undefined ? undefined : { action: 'accept', content };
}
