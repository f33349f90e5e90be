/**
 * What a surface needs to answer one POST: the registry, the caller's token session, the
 * in-flight calls, the request's headers and a hook for when the client goes.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { TokenSession } from '../auth/index.js';
import type { UpstreamCallResult } from '../contracts/index.js';
import type { ConnectorMCPRegistryApi } from '../registry/types.js';
import type { InFlightCalls } from './in-flight-calls.js';
import { isPlainObject } from '../util/objects.js';
import type { RpcId } from './json-rpc.js';
import { callTool } from './tool-call.js';

/** Per-request context of a surface. */
export interface ServeContext {
  readonly registry: ConnectorMCPRegistryApi;
  readonly session: TokenSession;
  readonly inFlight: InFlightCalls;
  readonly pageSize: number;
  readonly logger: FastifyBaseLogger;
  /**
   * Registers `fn` to run when the client closes the connection before the answer is
   * written (at once when it already has); returns the function that unregisters it.
   * One callback per request, not an AbortController: this runs on every POST.
   */
  onDisconnect(fn: () => void): () => void;
  /** A request header, case-insensitively; undefined when absent. */
  header(name: string): string | undefined;
}

/** An HTTP answer: a JSON body (text or UTF-8 bytes), or no body (202 for notifications). */
export interface Answer {
  readonly status: number;
  readonly body?: string | Buffer;
}

/** 202 Accepted with no body, the answer to every notification. */
export const ACCEPTED: Answer = Object.freeze({ status: 202 });

/** Runs one `tools/call` as an in-flight call keyed by (token, id), cancelled on disconnect. */
export async function runToolCall(
  ctx: ServeContext,
  id: RpcId,
  name: string,
  args: Record<string, unknown> | undefined,
): Promise<UpstreamCallResult> {
  const { tokenId } = ctx.session;
  const { signal, done } = ctx.inFlight.start(tokenId, id);
  const off = ctx.onDisconnect(() => ctx.inFlight.cancel(tokenId, id, 'disconnected'));
  try {
    return await callTool(ctx.registry, name, args, signal);
  } finally {
    off();
    done();
  }
}

/** Handles `notifications/cancelled`: aborts the caller's own call with that request id. */
export function cancelFromNotification(ctx: ServeContext, params: unknown): void {
  const requestId = isPlainObject(params) ? params.requestId : undefined;
  if (typeof requestId !== 'string' && typeof requestId !== 'number') return;
  if (ctx.inFlight.cancel(ctx.session.tokenId, requestId, 'cancelled')) {
    ctx.logger.debug({ requestId }, 'tools/call cancelled by the client');
  }
}
