/**
 * W3C Trace Context (`traceparent`, `tracestate`) read from and written to what crosses the
 * daemon: an agent's `params._meta` or HTTP header, and the upstream request the daemon
 * makes. A malformed value is dropped, never repaired: the daemon then starts a new trace
 * and the call goes on. Hand-written because it runs with tracing off too (the audit keeps
 * the caller's trace id, and the upstream gets the caller's context), where no OpenTelemetry
 * code is loaded.
 */
import { randomFillSync } from 'node:crypto';

/** One span's identity as it crosses a process boundary. */
export interface TraceContext {
  /** 32 lowercase hex digits, not all zero. */
  readonly traceId: string;
  /** 16 lowercase hex digits, not all zero. */
  readonly spanId: string;
  /** Trace flags; bit 0 is `sampled`. */
  readonly flags: number;
  /** A well-formed `tracestate`, when one came. */
  readonly state?: string;
}

const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);
/** tracestate: at most 32 members of `key=value` (W3C Trace Context, section 3.3). */
const MAX_STATE_MEMBERS = 32;
const MAX_STATE_LENGTH = 512;
const STATE_KEY =
  /^(?:[a-z][_0-9a-z\-*/]{0,255}|[a-z0-9][_0-9a-z\-*/]{0,240}@[a-z][_0-9a-z\-*/]{0,13})$/;
const STATE_VALUE = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;
/** W3C Baggage: the header's limit, and what one member looks like, loosely. */
const MAX_BAGGAGE_LENGTH = 8192;
const BAGGAGE_MEMBER = /^\s*[!#$%&'*+\-.^_`|~0-9A-Za-z]+\s*=\s*[^\s,;\\"]*\s*(;.*)?$/;

/**
 * The context a `traceparent` names, or undefined when it is malformed. A version above
 * 00 is read for its first four fields, as the spec asks; version ff never is.
 */
export function parseTraceparent(value: unknown): Omit<TraceContext, 'state'> | undefined {
  if (typeof value !== 'string' || value.length < 55) return undefined;
  const match = TRACEPARENT.exec(value);
  if (!match) return undefined;
  const [, version, traceId, spanId, flags, rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (traceId === ZERO_TRACE || spanId === ZERO_SPAN) return undefined;
  return { traceId: traceId!, spanId: spanId!, flags: Number.parseInt(flags!, 16) };
}

/** A `tracestate` that is well formed, else undefined. */
export function checkTracestate(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_STATE_LENGTH) {
    return undefined;
  }
  const members = value
    .split(',')
    .map((member) => member.trim())
    .filter(Boolean);
  if (members.length === 0 || members.length > MAX_STATE_MEMBERS) return undefined;
  const keys = new Set<string>();
  for (const member of members) {
    const equals = member.indexOf('=');
    if (equals <= 0) return undefined;
    const key = member.slice(0, equals);
    if (!STATE_KEY.test(key) || !STATE_VALUE.test(member.slice(equals + 1)) || keys.has(key)) {
      return undefined;
    }
    keys.add(key);
  }
  return members.join(',');
}

/** A `baggage` value that is well formed and within the header's limit, else undefined. */
export function checkBaggage(value: unknown): string | undefined {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_BAGGAGE_LENGTH) {
    return undefined;
  }
  return value.split(',').every((member) => BAGGAGE_MEMBER.test(member)) ? value : undefined;
}

/** The context carried by `traceparent` and `tracestate` values, or undefined. */
export function readTraceContext(
  traceparent: unknown,
  tracestate: unknown,
): TraceContext | undefined {
  const parent = parseTraceparent(traceparent);
  if (!parent) return undefined;
  const state = checkTracestate(tracestate);
  return state === undefined ? parent : { ...parent, state };
}

/** The `traceparent` of `context` (version 00). */
export function formatTraceparent(context: TraceContext): string {
  const flags = (context.flags & 0xff).toString(16).padStart(2, '0');
  return `00-${context.traceId}-${context.spanId}-${flags}`;
}

// Ids come from one pooled buffer: a random fill per id costs a syscall each.
const POOL = Buffer.alloc(4096);
let poolAt = POOL.length;

function randomHex(bytes: number): string {
  if (poolAt + bytes > POOL.length) {
    randomFillSync(POOL);
    poolAt = 0;
  }
  const hex = POOL.toString('hex', poolAt, poolAt + bytes);
  poolAt += bytes;
  return hex;
}

/** A random trace id (never all zero). */
export function newTraceId(): string {
  const id = randomHex(16);
  return id === ZERO_TRACE ? newTraceId() : id;
}

/** A random span id (never all zero). */
export function newSpanId(): string {
  const id = randomHex(8);
  return id === ZERO_SPAN ? newSpanId() : id;
}
