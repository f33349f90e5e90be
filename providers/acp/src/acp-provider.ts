/**
 * The generic ACP engine as a provider: spawn the agent, `initialize`, and inject the
 * connector context into `session/new|load|resume` only when the agent declares
 * `agentCapabilities.mcpCapabilities.http === true`; a failed or timed-out probe, or a
 * failed connector subsystem, gives a plain session that still starts.
 */
import { type InitializeResponse, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import {
  type AgentProvider,
  isTuttiError,
  type ProviderSession,
  type ProviderSessionContext,
  TuttiError,
} from '@tutti/core';
import { connectAcp } from './acp-connection.js';
import { AcpSession } from './acp-session.js';
import { spawnAgent } from './agent-process.js';
import type { AcpAgentDescriptor } from './descriptors.js';
import { type SessionRequestKind, sendSessionRequest } from './send-session-request.js';

const DEFAULT_INITIALIZE_TIMEOUT_MS = 20_000;
const DEFAULT_REQUEST_TIMEOUT_MS = 60_000;

/** A provider that drives the ACP agent `descriptor` describes. */
export function createAcpProvider(descriptor: AcpAgentDescriptor): AgentProvider {
  const open = (kind: SessionRequestKind) => (context: ProviderSessionContext, id: string) =>
    openAcpSession(descriptor, context, kind, id);
  return Object.freeze({
    name: descriptor.name,
    capabilities: Object.freeze({
      httpMcp: true,
      listChanged: descriptor.listChanged ?? false,
      nativeReload: true,
      load: true,
      resume: true,
    }),
    newSession: (context: ProviderSessionContext) => openAcpSession(descriptor, context, 'new'),
    loadSession: open('load'),
    resumeSession: open('resume'),
  });
}

async function openAcpSession(
  descriptor: AcpAgentDescriptor,
  context: ProviderSessionContext,
  kind: SessionRequestKind,
  providerSessionId?: string,
): Promise<ProviderSession> {
  const provider = descriptor.name;
  const command = context.launch.command ?? descriptor.command;
  if (!command) throw new TuttiError('TUTTI_ERR_PROVIDER_NO_COMMAND', { provider });
  const agent = await spawnAgent({
    provider,
    command,
    args: context.launch.args ?? descriptor.args ?? [],
    cwd: context.cwd,
    env: { ...context.env, ...descriptor.env, ...context.launch.env },
    processes: context.processes,
  });
  const connection = connectAcp(provider, agent);
  try {
    const initialize = await probe(connection, descriptor);
    const runtime = await context.prepare(
      initialize
        ? { httpMcp: initialize.agentCapabilities?.mcpCapabilities?.http === true }
        : undefined,
    );
    const requestTimeoutMs = descriptor.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
    const result = await sendSessionRequest({
      kind,
      runtime,
      context,
      connection,
      initialize,
      provider,
      ...(providerSessionId === undefined ? {} : { providerSessionId }),
      timeoutMs: requestTimeoutMs,
    });
    const sessionId = kind === 'new' ? result.sessionId : providerSessionId;
    if (typeof sessionId !== 'string' || sessionId === '') {
      throw new TuttiError('TUTTI_ERR_PROVIDER_REQUEST_FAILED', {
        provider,
        method: 'session/new',
        reason: 'the result has no sessionId',
      });
    }
    return new AcpSession({
      provider,
      context,
      agent,
      connection,
      initialize,
      providerSessionId: sessionId,
      connector: runtime.mcpServers.length > 0 ? 'bound' : 'plain',
      requestTimeoutMs,
    });
  } catch (error) {
    connection.close();
    await agent.kill();
    throw error;
  }
}

/** `initialize`; undefined when it fails or times out (the session degrades to plain). */
async function probe(
  connection: ReturnType<typeof connectAcp>,
  descriptor: AcpAgentDescriptor,
): Promise<InitializeResponse | undefined> {
  try {
    return await connection.request<InitializeResponse>(
      'initialize',
      {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
        clientInfo: { name: 'tutti', version: '0.1.0' },
      },
      descriptor.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS,
    );
  } catch (error) {
    if (isTuttiError(error, 'TUTTI_ERR_PROVIDER_AGENT_EXITED')) throw error;
    return undefined;
  }
}
