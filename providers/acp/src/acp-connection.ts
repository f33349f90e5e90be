/**
 * The ACP client side of one agent process: JSON-RPC 2.0 through the SDK's `client()` app,
 * over core's agent channel (bounded lines, noise and flood limits, one fault record).
 * Requests get a timeout; one interrupted by a fault of the agent fails with the fault's
 * error (what happened, the agent's last stderr lines), never a bare "connection closed".
 */
import {
  type AnyMessage,
  type ClientConnection,
  client,
  type InitializeResponse,
  PROTOCOL_VERSION,
  RequestError,
} from '@agentclientprotocol/sdk';
import { type AgentChannel, isTuttiError, TuttiError } from '@tutti/core';

/** ACP's JSON-RPC code for "authentication required". */
const AUTH_REQUIRED = -32000;

/**
 * One line of what a JSON-RPC error says: its message, and the detail agents put in
 * `data` (`message`, `details`: the real cause behind an "Internal error"), without a
 * final period.
 */
export function reasonOf(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  const data = (error as { data?: unknown }).data as Record<string, unknown> | undefined;
  const detail = [data?.message, data?.details].find(
    (value): value is string => typeof value === 'string' && value.trim() !== '',
  );
  const parts = [message, detail && !message.includes(detail) ? detail : undefined]
    .filter((part): part is string => Boolean(part))
    .map((part) =>
      part
        .replace(/\s+/g, ' ')
        .trim()
        .replace(/[.\s]+$/, ''),
    );
  return parts.join(': ') || 'the agent answered with an error';
}

/**
 * What to do about an agent that needs a login: the key variables its `env_var` auth
 * methods name (in the error's data, else in its `initialize` answer).
 */
function authHint(error: unknown, announced: readonly unknown[]): string {
  const data = (error as { data?: { authMethods?: unknown } }).data;
  const methods = Array.isArray(data?.authMethods) ? data.authMethods : announced;
  const vars = methods.flatMap((method) => {
    const m = method as { type?: unknown; vars?: unknown };
    if (m.type !== 'env_var' || !Array.isArray(m.vars)) return [];
    return m.vars.flatMap((v) =>
      typeof (v as { name?: unknown }).name === 'string' ? [(v as { name: string }).name] : [],
    );
  });
  return vars.length > 0
    ? `set ${vars.join(' or ')} in the session's "env"`
    : `give it a key in the session's "env", or sign in with the agent itself`;
}

/** A notification from the agent (e.g. `session/update`). */
export interface AcpNotification {
  readonly method: string;
  readonly params: unknown;
}

/** Answers a request the agent sends (e.g. `session/request_permission`). */
export type AcpRequestHandler = (params: unknown) => Promise<unknown>;

/** A request-level view of the connection. */
export interface AcpConnection {
  /** Sends `method` and resolves with its result; rejects with a TuttiError. */
  request<T>(method: string, params: unknown, timeoutMs: number): Promise<T>;
  /** Sends a notification (e.g. `session/cancel`). */
  notify(method: string, params: unknown): void;
  /** Receives every notification of the agent; returns the unsubscribe function. */
  onNotification(listener: (notification: AcpNotification) => void): () => void;
  /** Answers the agent's `method` requests with `handler` (one handler per method). */
  handle(method: string, handler: AcpRequestHandler): void;
  /** Closes the JSON-RPC connection (the process is stopped by the host). */
  close(): void;
}

/** Opens the ACP connection over `channel`. */
export function connectAcp(provider: string, channel: AgentChannel): AcpConnection {
  const listeners = new Set<(notification: AcpNotification) => void>();
  const handlers = new Map<string, AcpRequestHandler>();
  const app = client({ name: 'tutti' })
    .onNotification('*', ({ method, params }) => {
      for (const listener of listeners) listener({ method, params });
    })
    .onRequest('*', async ({ method, params }) => {
      const handler = handlers.get(method);
      if (!handler) throw RequestError.methodNotFound(method);
      return handler(params);
    });
  // The SDK may cancel the stream (on close) before the channel ends: neither side may then
  // touch the controller again, or the error would escape to the daemon.
  let readableOpen = true;
  const readable = new ReadableStream<AnyMessage>({
    start(controller) {
      channel.onMessage((message) => {
        if (readableOpen) controller.enqueue(message as AnyMessage);
      });
      void channel.faulted.then(() => {
        if (!readableOpen) return;
        readableOpen = false;
        controller.close();
      });
    },
    cancel() {
      readableOpen = false;
    },
  });
  const writable = new WritableStream<AnyMessage>({
    write(message) {
      channel.send(message);
    },
  });
  const connection: ClientConnection = app.connect({ readable, writable });
  // Closing with an error rejects this promise; the channel already records why.
  connection.closed.catch(() => {});
  /** The auth methods the agent announced in its `initialize` answer. */
  let authMethods: readonly unknown[] = [];
  return {
    async request<T>(method: string, params: unknown, timeoutMs: number): Promise<T> {
      if (channel.fault) throw channel.errorFor(method);
      const signal = AbortSignal.timeout(timeoutMs);
      try {
        const result = await connection.agent.request<T, unknown>(method, params, {
          cancellationSignal: signal,
          stopWaitingOnCancel: true,
        });
        const announced = (result as { authMethods?: unknown } | null)?.authMethods;
        if (method === 'initialize' && Array.isArray(announced)) authMethods = announced;
        return result;
      } catch (error) {
        if (channel.fault) throw channel.errorFor(method);
        if (signal.aborted) {
          throw new TuttiError(
            'TUTTI_ERR_PROVIDER_REQUEST_FAILED',
            { provider, method, reason: `no answer within ${timeoutMs} ms` },
            { cause: error },
          );
        }
        const reason = redact(reasonOf(error));
        // ACP's auth_required: the agent needs a login or a key before it opens a session.
        if ((error as { code?: unknown }).code === AUTH_REQUIRED) {
          throw new TuttiError(
            'TUTTI_ERR_PROVIDER_AGENT_AUTH',
            { provider, method, reason, how: authHint(error, authMethods) },
            { cause: error },
          );
        }
        throw new TuttiError(
          'TUTTI_ERR_PROVIDER_REQUEST_FAILED',
          { provider, method, reason },
          { cause: error },
        );
      }
    },
    notify(method, params) {
      void connection.agent.notify(method, params).catch(() => {});
    },
    onNotification(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    handle(method, handler) {
      handlers.set(method, handler);
    },
    close: () => connection.close(),
  };
}

/** An agent may echo params back in its error text: never let a bearer token through. */
function redact(text: string): string {
  return text.replace(/Bearer\s+[^\s"',}\]]+/gi, 'Bearer [redacted]');
}

/** `initialize`; undefined when it fails or times out (the session degrades to plain). */
export async function probeAgent(
  connection: AcpConnection,
  timeoutMs: number,
): Promise<InitializeResponse | undefined> {
  try {
    return await connection.request<InitializeResponse>(
      'initialize',
      {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: 'tutti', version: '0.1.0' },
      },
      timeoutMs,
    );
  } catch (error) {
    if (
      isTuttiError(error, 'TUTTI_ERR_PROVIDER_AGENT_EXITED') ||
      isTuttiError(error, 'TUTTI_ERR_PROVIDER_AGENT_MISBEHAVED')
    ) {
      throw error;
    }
    return undefined;
  }
}
