/**
 * Which `tools/call` answers may stream, and what their scope relays: a caller that
 * declared elicitation (2025 surface) or sent a `progressToken` (either era), and whose
 * Accept allows `text/event-stream`, gets a {@link CallStream} carrying the upstream's
 * questions (2025) and progress. Every other call gets nothing here and keeps the plain
 * JSON path untouched: the check costs a map lookup and a member read.
 */
import type { FastifyReply } from 'fastify';
import type { TokenSession } from '../auth/index.js';
import type { CallSignal } from '../contracts/index.js';
import { isPlainObject } from '../util/objects.js';
import { type CallStream, createCallStream, progressNotification } from './call-stream.js';
import { STREAM_PROGRESS_BUFFER_LIMIT } from './constants.js';
import type { ElicitationRelay } from './elicitation-relay.js';
import type { InboundRequest } from './inbound-message.js';
import type { RpcId } from './json-rpc.js';
import type { RequestScope } from './surface.js';

/** Longest relayed progress message (longer ones are cut). */
const MAX_PROGRESS_MESSAGE = 4096;

/** The relays a streamable call's scope gets. */
export type CallRelays = Pick<RequestScope, 'elicit' | 'onProgress' | 'onBinding'>;

/** A streamable call: its stream, the relays for its scope, and its end. */
export interface StreamableCall {
  readonly stream: CallStream;
  readonly relays: CallRelays;
  /**
   * The call is over (answered, failed or aborted): its questions still waiting on the
   * agent are withdrawn (the upstream was answered, or went away, without them).
   */
  end(): void;
}

/** Prepares the streamed answers of one server's calls. */
export type PrepareCall = (
  message: InboundRequest,
  session: TokenSession,
  signal: CallSignal,
  accept: string | undefined,
  reply: FastifyReply,
) => StreamableCall | undefined;

/** The caller's `params._meta.progressToken`, when it is a valid one (string or integer). */
export function progressTokenOf(params: unknown): RpcId | undefined {
  if (!isPlainObject(params)) return undefined;
  const meta = params._meta;
  if (!isPlainObject(meta)) return undefined;
  const token = meta.progressToken;
  return typeof token === 'string' || (typeof token === 'number' && Number.isSafeInteger(token))
    ? token
    : undefined;
}

/** True when an Accept header value allows `text/event-stream` (absent: no). */
function allowsEventStream(accept: string): boolean {
  return accept.split(',').some((part) => {
    const type = part.split(';')[0]!.trim().toLowerCase();
    return type === 'text/event-stream' || type === 'text/*' || type === '*/*';
  });
}

/** The call preparation of one server over its elicitation `relay`. */
export function createCallPreparation(relay: ElicitationRelay, keepAliveMs: number): PrepareCall {
  // A client sends the same Accept on every POST: its verdict is remembered.
  let lastAccept: { value: string; allows: boolean } = { value: '', allows: false };
  return (message, session, signal, accept, reply) => {
    const modes = message.era === 'legacy' ? relay.modesOf(session.tokenId) : 0;
    const progressToken = progressTokenOf(message.params);
    if ((modes === 0 && progressToken === undefined) || accept === undefined) return undefined;
    if (accept !== lastAccept.value)
      lastAccept = { value: accept, allows: allowsEventStream(accept) };
    if (!lastAccept.allows) return undefined;
    const stream = createCallStream(reply.raw, {
      takeOver: () => reply.hijack(),
      keepAliveMs,
      bufferLimit: STREAM_PROGRESS_BUFFER_LIMIT,
    });
    let target: { connector: string; tool: string } | undefined;
    const relays: { -readonly [K in keyof CallRelays]: CallRelays[K] } = {
      onBinding: (binding) => {
        target = { connector: binding.connectorKey, tool: binding.localName };
      },
    };
    let elicit: ReturnType<ElicitationRelay['elicitFor']> | undefined;
    if (modes !== 0) {
      elicit = relay.elicitFor({ session, signal, stream, modes, target: () => target });
      relays.elicit = elicit;
    }
    if (progressToken !== undefined) {
      relays.onProgress = (progress) => {
        const notification = progressNotification(progressToken, progress, MAX_PROGRESS_MESSAGE);
        if (notification !== undefined) stream.send(notification, true);
      };
    }
    return { stream, relays, end: () => elicit?.end('the call ended') };
  };
}
