/**
 * The wire shapes of 2026-07-28 multi round-trip requests (SEP-2322) as this server speaks
 * them: which elicitation modes a request's `_meta` client capabilities declare, the
 * `input_required` result that relays an upstream's question, and the checked answer a
 * retry's `inputResponses` carries. Everything a retry sends is hostile: an answer that
 * is missing or not of the MCP shape is taken as `cancel`, never passed on as it came.
 */
import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/server';
import type { ElicitationAnswer, ElicitationMode, ElicitationRequest } from '../contracts/index.js';
import { isPlainObject } from '../util/objects.js';
import { CALL_RESULT_SERVER_INFO } from './call-result-json.js';

/** The key of the one input request an `input_required` result of this server holds. */
export const INPUT_REQUEST_KEY = 'elicitation';

/** Most members an accepted answer's content may have. */
const MAX_CONTENT_MEMBERS = 256;

/** The answer given whenever nobody can or did answer. */
export const CANCEL: ElicitationAnswer = Object.freeze({ action: 'cancel' });

/** Modes a caller declared nothing for. */
const NO_MODES: ReadonlySet<ElicitationMode> = new Set();

/**
 * The elicitation modes the request's `_meta` client capabilities declare: `url` when
 * `elicitation.url` is there, `form` when `elicitation.form` is or neither is (an empty
 * `elicitation` object means form, as in 2025-06-18).
 */
export function elicitationModes(params: unknown): ReadonlySet<ElicitationMode> {
  const meta = isPlainObject(params) ? params._meta : undefined;
  const capabilities = isPlainObject(meta) ? meta[CLIENT_CAPABILITIES_META_KEY] : undefined;
  const elicitation = isPlainObject(capabilities) ? capabilities.elicitation : undefined;
  if (!isPlainObject(elicitation)) return NO_MODES;
  const modes = new Set<ElicitationMode>();
  if (isPlainObject(elicitation.url)) modes.add('url');
  if (isPlainObject(elicitation.form) || !('url' in elicitation)) modes.add('form');
  return modes;
}

/** True when a `tools/call`'s params carry a retry's members. */
export function isRetry(params: unknown): params is Record<string, unknown> {
  return (
    isPlainObject(params) &&
    (params.requestState !== undefined || params.inputResponses !== undefined)
  );
}

/**
 * The embedded `elicitation/create` params of `request`: only the members 2026-07-28 has
 * (its URL mode dropped `elicitationId`); undefined when the request lacks what its mode
 * needs, so it cannot be relayed.
 */
function embeddedParams(request: ElicitationRequest): Record<string, unknown> | undefined {
  if (typeof request.message !== 'string') return undefined;
  if (request.mode === 'url') {
    return typeof request.url === 'string'
      ? { mode: 'url', message: request.message, url: request.url }
      : undefined;
  }
  return isPlainObject(request.requestedSchema)
    ? { mode: 'form', message: request.message, requestedSchema: request.requestedSchema }
    : undefined;
}

/** True when `request` can be relayed as an input request. */
export function relayable(request: ElicitationRequest): boolean {
  return embeddedParams(request) !== undefined;
}

/** The `input_required` result JSON relaying `request`, resumable with `state`. */
export function inputRequiredJson(request: ElicitationRequest, state: string): string {
  const inputRequests = {
    [INPUT_REQUEST_KEY]: { method: 'elicitation/create', params: embeddedParams(request) },
  };
  return `{"resultType":"input_required","inputRequests":${JSON.stringify(inputRequests)},"requestState":${JSON.stringify(state)},${CALL_RESULT_SERVER_INFO}}`;
}

function isContentValue(value: unknown): boolean {
  if (typeof value === 'string' || typeof value === 'boolean') return true;
  if (typeof value === 'number') return Number.isFinite(value);
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

/**
 * The answer for `key` in a retry's `inputResponses`: an MCP elicitation result (action
 * `accept`, `decline` or `cancel`; content only with `accept`, a flat object of strings,
 * numbers, booleans and string arrays), copied member by member; {@link CANCEL} when it
 * is missing or anything else.
 */
export function elicitationAnswer(responses: unknown, key: string): ElicitationAnswer {
  if (!isPlainObject(responses) || !Object.hasOwn(responses, key)) return CANCEL;
  const response = responses[key];
  if (!isPlainObject(response)) return CANCEL;
  const { action, content } = response;
  if (action === 'decline' || action === 'cancel') {
    return content === undefined ? { action } : CANCEL;
  }
  if (action !== 'accept') return CANCEL;
  if (content === undefined) return { action };
  if (!isPlainObject(content)) return CANCEL;
  const entries = Object.entries(content);
  if (entries.length > MAX_CONTENT_MEMBERS) return CANCEL;
  for (const [, value] of entries) if (!isContentValue(value)) return CANCEL;
  // fromEntries defines each member, so a `__proto__` key stays a plain member.
  const copied = Object.fromEntries(
    entries.map(([name, value]) => [name, Array.isArray(value) ? [...value] : value]),
  );
  return { action, content: copied };
}
