/**
 * The `requestState` of a 2026-07-28 `input_required` result: an opaque string the client
 * echoes on its retry, which MCP says a server must treat as attacker-controlled. It is
 * sealed with an HMAC-SHA256 key of this server and names one parked upstream call (a
 * random id, used once) and an expiry; the MAC also covers the token, the local tool name
 * and the digest of the canonical arguments, which the retry must repeat, so a state lent
 * to another token, tool or argument set never verifies. Every refusal is the same -32602:
 * the client learns to start over, not which check failed.
 */
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { isPlainObject } from '../util/objects.js';
import { RpcCode } from './constants.js';
import { RpcError } from './json-rpc.js';

/** Version tag of the sealed form (also bound into the MAC). */
const VERSION = 'v1';
/** Bytes of a parked call's id. */
const ID_BYTES = 16;
/** Longest state looked at: anything longer is refused before it is parsed. */
export const MAX_REQUEST_STATE_LENGTH = 128;
const SEALED = /^v1\.([A-Za-z0-9_-]{22})\.([0-9]{1,15})\.([A-Za-z0-9_-]{43})$/;

/** What a state is bound to besides its parked call: the caller and the call it repeats. */
export interface StateBinding {
  readonly tokenId: string;
  /** The local tool name (`<connectorKey>_<tool>`). */
  readonly tool: string;
  /** {@link argumentsDigest} of the call's arguments. */
  readonly argumentsDigest: string;
}

/** Seals and opens the request states of one server. */
export interface RequestStates {
  /** A new parked call id (base64url). */
  newId(): string;
  /** The sealed state naming parked call `id` until `expiresAt` (ms since the epoch). */
  seal(binding: StateBinding, id: string, expiresAt: number): string;
  /**
   * The parked call id `state` names, when it was sealed here for `binding` and has not
   * expired at `now`; else throws the one {@link invalidRequestState} error. Constant time
   * in the MAC comparison; never throws anything else, whatever `state` is.
   */
  open(state: unknown, binding: StateBinding, now: number): string;
}

/** The one refusal of a retry whose `requestState` cannot resume a call. */
export function invalidRequestState(): RpcError {
  return new RpcError(
    RpcCode.InvalidParams,
    'Invalid params: requestState is not valid for this call (it may have expired or been used already); retry the call from the start without inputResponses and requestState',
  );
}

/**
 * The canonical JSON of `value` (object keys sorted, recursively), or undefined when it
 * nests deeper than `depthLimit` levels (the arguments object is level 1).
 */
function canonicalJson(value: unknown, depthLimit: number, depth = 1): string | undefined {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (depth > depthLimit) return undefined;
  const parts: string[] = [];
  if (Array.isArray(value)) {
    for (const item of value) {
      const part = canonicalJson(item, depthLimit, depth + 1);
      if (part === undefined) return undefined;
      parts.push(part);
    }
    return `[${parts.join(',')}]`;
  }
  const record = value as Record<string, unknown>;
  for (const key of Object.keys(record).sort()) {
    if (record[key] === undefined) continue;
    const part = canonicalJson(record[key], depthLimit, depth + 1);
    if (part === undefined) return undefined;
    parts.push(`${JSON.stringify(key)}:${part}`);
  }
  return `{${parts.join(',')}}`;
}

/**
 * SHA-256 (hex) of the canonical JSON of a call's arguments (absent ones count as `{}`),
 * or undefined when they are not an object or nest deeper than `depthLimit`.
 */
export function argumentsDigest(args: unknown, depthLimit: number): string | undefined {
  const value = args === undefined ? {} : args;
  if (!isPlainObject(value)) return undefined;
  const json = canonicalJson(value, depthLimit);
  return json === undefined ? undefined : createHash('sha256').update(json, 'utf8').digest('hex');
}

/** Creates the sealer of one server with `key` (at least 32 bytes). */
export function createRequestStates(key: Buffer): RequestStates {
  if (key.length < 32) throw new RangeError('requestStateKey must hold at least 32 bytes');
  const macOf = (binding: StateBinding, id: string, expiresAt: string): Buffer =>
    createHmac('sha256', key)
      .update(
        JSON.stringify([
          VERSION,
          binding.tokenId,
          binding.tool,
          binding.argumentsDigest,
          id,
          expiresAt,
        ]),
        'utf8',
      )
      .digest();
  return {
    newId: () => randomBytes(ID_BYTES).toString('base64url'),
    seal(binding, id, expiresAt) {
      const expiry = String(Math.trunc(expiresAt));
      return `${VERSION}.${id}.${expiry}.${macOf(binding, id, expiry).toString('base64url')}`;
    },
    open(state, binding, now) {
      if (typeof state !== 'string' || state.length > MAX_REQUEST_STATE_LENGTH) {
        throw invalidRequestState();
      }
      const parts = SEALED.exec(state);
      if (!parts) throw invalidRequestState();
      const [, id, expiry, mac] = parts as unknown as [string, string, string, string];
      // Compared as text: base64url decoding ignores the last character's spare bits, so
      // comparing bytes would let an altered state through.
      const given = Buffer.from(mac, 'latin1');
      const expected = Buffer.from(macOf(binding, id, expiry).toString('base64url'), 'latin1');
      // Both checks always run, so the time taken does not tell which one failed.
      const authentic = timingSafeEqual(given, expected);
      const live = Number(expiry) > now;
      if (!authentic || !live) throw invalidRequestState();
      return id;
    },
  };
}
