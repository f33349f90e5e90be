/**
 * What an upstream asks (`elicitation/create`) and reports (`notifications/progress`), read
 * as hostile input: only the members the contract names, bounded in size; and the person's
 * answer checked before it goes upstream. Both upstream paths (raw stdio and the SDK
 * client) use these, so they relay exactly the same thing.
 */
import type {
  CallProgress,
  ElicitationAnswer,
  ElicitationRequest,
  JsonSchemaObject,
} from '../contracts/index.js';
import { isPlainObject } from '../util/objects.js';

/** Longest message of an elicitation or a progress notification relayed, in characters. */
export const MAX_ELICITATION_MESSAGE = 8 * 1024;
/** Largest requested schema relayed, as JSON characters. */
export const MAX_REQUESTED_SCHEMA = 64 * 1024;
/** Longest URL (URL mode) and elicitation id relayed. */
const MAX_URL = 4096;
const MAX_ELICITATION_ID = 256;
/** Bounds of an answer's content: members, characters of one string, items of one list. */
const MAX_CONTENT_MEMBERS = 64;
const MAX_CONTENT_STRING = 16 * 1024;
const MAX_CONTENT_ITEMS = 256;
const MAX_PROGRESS_MESSAGE = 1024;

/** The answer that asks nobody: what an unroutable or unanswerable elicitation gets. */
export const CANCEL: ElicitationAnswer = Object.freeze({ action: 'cancel' });

const ACTIONS = new Set(['accept', 'decline', 'cancel']);

/**
 * The relayable part of an upstream's `elicitation/create` params, or undefined when they
 * are not a well-formed, bounded form or URL request (the upstream is then told `-32602`).
 */
export function readElicitationRequest(params: unknown): ElicitationRequest | undefined {
  if (!isPlainObject(params)) return undefined;
  const { mode = 'form', message } = params;
  if (typeof message !== 'string' || message.length > MAX_ELICITATION_MESSAGE) return undefined;
  if (mode === 'form') {
    const schema = params.requestedSchema;
    if (!isPlainObject(schema) || schema.type !== 'object' || !isPlainObject(schema.properties)) {
      return undefined;
    }
    let json: string;
    try {
      json = JSON.stringify(schema);
    } catch {
      return undefined;
    }
    if (json.length > MAX_REQUESTED_SCHEMA) return undefined;
    // A copy: nothing the upstream's object holds besides JSON reaches the agent.
    return { mode, message, requestedSchema: JSON.parse(json) as JsonSchemaObject };
  }
  if (mode === 'url') {
    const { url, elicitationId } = params;
    if (typeof url !== 'string' || url.length > MAX_URL || !isWebUrl(url)) return undefined;
    if (elicitationId === undefined) return { mode, message, url };
    if (typeof elicitationId !== 'string' || elicitationId.length > MAX_ELICITATION_ID) {
      return undefined;
    }
    return { mode, message, url, elicitationId };
  }
  return undefined;
}

/** True for an http(s) URL: the person is never sent to `javascript:`, `file:` and the like. */
function isWebUrl(text: string): boolean {
  if (!URL.canParse(text)) return false;
  const { protocol } = new URL(text);
  return protocol === 'https:' || protocol === 'http:';
}

/**
 * The answer as it goes upstream: the action, and content only for an accepted form, as a
 * flat object of strings, numbers, booleans and lists of strings. An answer outside that
 * shape is `cancel` (the upstream never gets what the spec does not let it expect).
 */
export function readElicitationAnswer(
  answer: unknown,
  request: ElicitationRequest,
): ElicitationAnswer {
  if (!isPlainObject(answer) || typeof answer.action !== 'string') return CANCEL;
  const action = answer.action;
  if (!ACTIONS.has(action)) return CANCEL;
  if (action !== 'accept') return { action: action as ElicitationAnswer['action'] };
  if (request.mode === 'url' || answer.content === undefined) return { action };
  const content = flatContent(answer.content);
  return content === undefined ? CANCEL : { action, content };
}

function flatContent(value: unknown): Record<string, unknown> | undefined {
  if (!isPlainObject(value)) return undefined;
  const entries = Object.entries(value);
  if (entries.length > MAX_CONTENT_MEMBERS) return undefined;
  const out: Record<string, unknown> = {};
  for (const [key, item] of entries) {
    if (key.length > MAX_CONTENT_STRING || !isContentValue(item)) return undefined;
    out[key] = Array.isArray(item) ? [...item] : item;
  }
  return out;
}

function isContentValue(value: unknown): boolean {
  if (typeof value === 'string') return value.length <= MAX_CONTENT_STRING;
  if (typeof value === 'number') return Number.isFinite(value);
  if (typeof value === 'boolean') return true;
  return (
    Array.isArray(value) &&
    value.length <= MAX_CONTENT_ITEMS &&
    value.every((item) => typeof item === 'string' && item.length <= MAX_CONTENT_STRING)
  );
}

/**
 * Asks `elicit` and returns its checked answer; `cancel` when there is nobody to ask or
 * asking failed (nothing waits on a caller that cannot answer).
 */
export async function askPerson(
  elicit: ((request: ElicitationRequest) => Promise<ElicitationAnswer>) | undefined,
  request: ElicitationRequest,
): Promise<ElicitationAnswer> {
  if (elicit === undefined) return CANCEL;
  try {
    return readElicitationAnswer(await elicit(request), request);
  } catch {
    return CANCEL;
  }
}

/**
 * One progress notification's params without the token, or undefined when they are not a
 * finite progress (a message is cut to its bound).
 */
export function readProgress(params: unknown): CallProgress | undefined {
  if (!isPlainObject(params)) return undefined;
  const { progress, total, message } = params;
  if (typeof progress !== 'number' || !Number.isFinite(progress)) return undefined;
  const out: { progress: number; total?: number; message?: string } = { progress };
  if (typeof total === 'number' && Number.isFinite(total)) out.total = total;
  if (typeof message === 'string') out.message = message.slice(0, MAX_PROGRESS_MESSAGE);
  return out;
}
