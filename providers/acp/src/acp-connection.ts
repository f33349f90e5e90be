/**
 * ACP client side of one agent process: JSON-RPC 2.0, newline-delimited, over the agent's
 * stdio, through the SDK's `client()` app. Requests get a timeout and fail with a
 * TuttiError naming the provider and method; a request pending when the agent exits fails
 * at once instead of hanging.
 */
import { Readable, Writable } from 'node:stream';
import {
  type ClientConnection,
  client,
  ndJsonStream,
  RequestError,
} from '@agentclientprotocol/sdk';
import { TuttiError } from '@tutti/core';
import type { AgentProcess } from './agent-process.js';

/** A request-level view of the connection. */
export interface AcpConnection {
  /** Sends `method` and resolves with its result; rejects with a TuttiError. */
  request<T>(method: string, params: unknown, timeoutMs: number): Promise<T>;
  /** Closes the JSON-RPC connection (the process is killed separately). */
  close(): void;
}

/** Opens the ACP connection over `agent`'s stdio. */
export function connectAcp(provider: string, agent: AgentProcess): AcpConnection {
  const app = client({ name: 'tutti' })
    // Session updates (e.g. history replayed by session/load) are not needed here.
    .onNotification('*', () => {});
  const { stdin, stdout } = agent.child;
  if (!stdin || !stdout) throw new Error('agent stdio is not piped');
  const connection: ClientConnection = app.connect(
    ndJsonStream(
      Writable.toWeb(stdin) as WritableStream<Uint8Array>,
      Readable.toWeb(stdout) as ReadableStream<Uint8Array>,
    ),
  );
  const exited = agent.exited.then((reason) => ({ exited: reason }));
  const exitedDuring = (method: string, reason: string): never => {
    throw new TuttiError('TUTTI_ERR_PROVIDER_AGENT_EXITED', { provider, method, reason });
  };
  return {
    async request<T>(method: string, params: unknown, timeoutMs: number): Promise<T> {
      const signal = AbortSignal.timeout(timeoutMs);
      const sent = connection.agent.request<T, unknown>(method, params, {
        cancellationSignal: signal,
        stopWaitingOnCancel: true,
      });
      const outcome = await Promise.race([
        sent.then(
          (result) => ({ result }),
          (error: unknown) => ({ error }),
        ),
        exited,
      ]);
      if ('error' in outcome && !signal.aborted && !(outcome.error instanceof RequestError)) {
        // The connection closed under the request: the agent is ending; make sure it has.
        await agent.kill();
        return exitedDuring(method, await agent.exited);
      }
      if ('exited' in outcome) {
        sent.catch(() => {});
        return exitedDuring(method, outcome.exited);
      }
      if ('error' in outcome) {
        const reason = signal.aborted
          ? `no answer within ${timeoutMs} ms`
          : redact(outcome.error instanceof Error ? outcome.error.message : String(outcome.error));
        throw new TuttiError(
          'TUTTI_ERR_PROVIDER_REQUEST_FAILED',
          { provider, method, reason },
          { cause: outcome.error },
        );
      }
      return outcome.result;
    },
    close: () => connection.close(),
  };
}

/** An agent may echo params back in its error text: never let a bearer token through. */
function redact(text: string): string {
  return text.replace(/Bearer\s+[^\s"',}\]]+/gi, 'Bearer [redacted]');
}
