/**
 * Sends `session/new`, `session/load` or `session/resume`: projects the runtime, runs the
 * matching hook waterfall, checks that no tap removed the connector binding, and sends.
 */
import type { InitializeResponse } from '@agentclientprotocol/sdk';
import { isDeepStrictEqual } from 'node:util';
import { type PreparedRuntime, type ProviderSessionContext, TuttiError } from '@tutti/core';
import type { AcpConnection } from './acp-connection.js';
import { acpMcpServers, sessionParams } from './project-params.js';

/** Which session request. */
export type SessionRequestKind = 'new' | 'load' | 'resume';

const METHODS = { new: 'session/new', load: 'session/load', resume: 'session/resume' } as const;
const HOOKS = { new: 'sessionNew', load: 'sessionLoad', resume: 'sessionResume' } as const;

/** Sends the request; resolves with the agent's result. */
export async function sendSessionRequest(input: {
  kind: SessionRequestKind;
  runtime: PreparedRuntime;
  context: ProviderSessionContext;
  connection: AcpConnection;
  initialize: InitializeResponse | undefined;
  provider: string;
  providerSessionId?: string;
  timeoutMs: number;
}): Promise<Record<string, unknown>> {
  const { kind, runtime, context } = input;
  const projected = sessionParams(runtime, {
    additionalDirectories: Boolean(
      input.initialize?.agentCapabilities?.sessionCapabilities?.additionalDirectories,
    ),
  });
  const base = kind === 'new' ? projected : { sessionId: input.providerSessionId, ...projected };
  const hook = context.hooks[HOOKS[kind]];
  const params = await hook.promise(base, runtime, context.session);
  const sent = Array.isArray(params.mcpServers) ? params.mcpServers : [];
  for (const server of acpMcpServers(runtime)) {
    if (!sent.some((candidate) => isDeepStrictEqual(candidate, server))) {
      throw new TuttiError('TUTTI_ERR_PROVIDER_BINDING_DROPPED', {
        hook: HOOKS[kind],
        method: METHODS[kind],
        session: context.session.agentSessionId,
      });
    }
  }
  const result = await input.connection.request<Record<string, unknown> | null>(
    METHODS[kind],
    params,
    input.timeoutMs,
  );
  return result ?? {};
}
