/**
 * The wire shapes of 2026-07-28 multi round-trip requests (SEP-2322) as this server speaks
 * them: which elicitation modes a request's `_meta` client capabilities declare, the
 * `input_required` result that relays an upstream's question, and the checked answer a
 * retry's `inputResponses` carries. Everything a retry sends is hostile: an answer that
 * is missing or not of the MCP shape is taken as `cancel`, never passed on as it came.
 * Both the declared modes and the answers are read as the 2025 surface reads them
 * (elicitation-relay.ts, elicitation-answer.ts), so both surfaces take the same ones.
 */
import { CLIENT_CAPABILITIES_META_KEY } from '@modelcontextprotocol/server';
import type { ElicitationAnswer, ElicitationMode, ElicitationRequest } from '../contracts/index.js';
import { isPlainObject } from '../util/objects.js';
import { CALL_RESULT_SERVER_INFO } from './call-result-json.js';
import { elicitationAnswerOf } from './elicitation-answer.js';
import { declaredModes, FORM_MODE, URL_MODE } from './elicitation-relay.js';

/** The key of the one input request an `input_required` result of this server holds. */
export const INPUT_REQUEST_KEY = 'elicitation';

/** The answer given whenever nobody can or did answer. */
export const CANCEL: ElicitationAnswer = Object.freeze({ action: 'cancel' });

/** The mode sets, indexed by the mode bits of elicitation-relay.ts. */
const MODE_SETS: readonly ReadonlySet<ElicitationMode>[] = [
  new Set(),
  new Set(['form']),
  new Set(['url']),
  new Set(['form', 'url']),
];

/**
 * The elicitation modes the request's `_meta` client capabilities declare, read as an
 * `initialize`'s capabilities are on the 2025 surface ({@link declaredModes}): `form` and
 * `url` when declared, an empty `elicitation` object meaning form.
 */
export function elicitationModes(params: unknown): ReadonlySet<ElicitationMode> {
  const meta = isPlainObject(params) ? params._meta : undefined;
  const capabilities = isPlainObject(meta) ? meta[CLIENT_CAPABILITIES_META_KEY] : undefined;
  return MODE_SETS[declaredModes({ capabilities }) & (FORM_MODE | URL_MODE)]!;
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

/**
 * The answer in a retry's `inputResponses` to the open question of `mode`: its entry is
 * the caller's elicitation result, checked as the 2025 surface checks one
 * ({@link elicitationAnswerOf}); {@link CANCEL} when it is missing or not a valid one.
 */
export function elicitationAnswer(responses: unknown, mode: ElicitationMode): ElicitationAnswer {
  if (!isPlainObject(responses) || !Object.hasOwn(responses, INPUT_REQUEST_KEY)) return CANCEL;
  return elicitationAnswerOf(responses[INPUT_REQUEST_KEY], mode) ?? CANCEL;
}
