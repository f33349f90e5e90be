/**
 * The generic ACP engine as a provider, and the taps that make it one: a handshake
 * (`initialize`) on the spawned agent decides the connector context (only an agent that
 * declares `agentCapabilities.mcpCapabilities.http === true` gets it; one that does not
 * answer gets a plain session that still starts), the projection taps build the ACP
 * session params, and the refresh tap re-sends them through `session/resume` or
 * `session/load` when the agent can take them.
 */
import { type InitializeResponse, PROTOCOL_VERSION } from '@agentclientprotocol/sdk';
import {
  type AgentProcess,
  type AgentProvider,
  isTuttiError,
  openAgentChannel,
  type PluginHost,
  type PreparedRuntime,
  PROJECTION_STAGE,
  providerHooks,
  REFRESH_STAGES,
  REFRESH_STRATEGIES,
  type SessionHookContext,
  type SessionSetup,
  TuttiError,
} from '@tutti/core';
import { type AcpConnection, connectAcp } from './acp-connection.js';
import { AcpSession, reloadOperation } from './acp-session.js';
import type { AcpAgentDescriptor } from './descriptors.js';
import { type AcpSessionParams, bindingsInParams, sessionParams } from './project-params.js';

const DEFAULT_INITIALIZE_TIMEOUT_MS = 20_000;
const PLUGIN_NAME = 'AcpProvider';

/** What the handshake leaves for opening the session. */
export interface AcpState {
  readonly connection: AcpConnection;
  readonly initialize: InitializeResponse | undefined;
}

declare module '@tutti/core' {
  interface ProviderParamsMap {
    acp: AcpSessionParams;
    opencode: AcpSessionParams;
  }
}

/** A provider that drives the ACP agent `descriptor` describes. */
export function createAcpProvider(
  descriptor: AcpAgentDescriptor,
): AgentProvider<string, AcpState, AcpSessionParams> {
  const open = (method: 'session/new' | 'session/load' | 'session/resume') =>
    async function openSession(request: {
      params: unknown;
      state: AcpState;
      setup: SessionSetup;
      providerSessionId?: string;
    }): Promise<AcpSession> {
      const requestTimeoutMs = descriptor.requestTimeoutMs ?? request.setup.timeoutMs;
      const result = await request.state.connection.request<Record<string, unknown> | null>(
        method,
        request.params,
        requestTimeoutMs,
      );
      const sessionId = method === 'session/new' ? result?.sessionId : request.providerSessionId;
      if (typeof sessionId !== 'string' || sessionId === '') {
        throw new TuttiError('TUTTI_ERR_PROVIDER_REQUEST_FAILED', {
          provider: descriptor.name,
          method,
          reason: 'the result has no sessionId',
        });
      }
      return new AcpSession({
        connection: request.state.connection,
        providerSessionId: sessionId,
        declared: request.state.initialize?.agentCapabilities as
          | Readonly<Record<string, unknown>>
          | undefined,
        requestTimeoutMs,
      });
    };
  return Object.freeze({
    name: descriptor.name,
    flags: Object.freeze({ httpMcp: true, listChanged: descriptor.listChanged ?? false }),
    launch: Object.freeze({
      ...(descriptor.command ? { command: descriptor.command } : {}),
      args: descriptor.args ?? [],
      env: descriptor.env ?? {},
    }),
    async handshake(agent: AgentProcess, setup: SessionSetup) {
      const connection = connectAcp(descriptor.name, openAgentChannel(agent, descriptor.limits));
      // Until a turn runs, nobody can answer a permission request: it is cancelled, not an error.
      connection.handle('session/request_permission', async () => ({
        outcome: { outcome: 'cancelled' },
      }));
      const initialize = await probe(
        connection,
        Math.min(descriptor.initializeTimeoutMs ?? DEFAULT_INITIALIZE_TIMEOUT_MS, setup.timeoutMs),
      );
      return {
        declared: initialize
          ? ((initialize.agentCapabilities ?? {}) as Readonly<Record<string, unknown>>)
          : undefined,
        state: { connection, initialize },
      };
    },
    probeOf(declared: Readonly<Record<string, unknown>>) {
      const mcp = declared.mcpCapabilities as Record<string, unknown> | undefined;
      return { httpMcp: mcp?.http === true };
    },
    bindingsIn: (params: AcpSessionParams) => bindingsInParams(params),
    newSession: open('session/new'),
    loadSession: open('session/load'),
    resumeSession: open('session/resume'),
  });
}

/** Registers the provider of `descriptor` on `host` and taps its projection and refresh hooks. */
export function installAcpAgent(host: PluginHost, descriptor: AcpAgentDescriptor): void {
  // Every ACP agent's hooks carry ACP session params, whatever the descriptor's name.
  const hooks = providerHooks(host.hooks, descriptor.name as 'acp');
  const project = async (
    _params: AcpSessionParams,
    runtime: PreparedRuntime,
    session: SessionHookContext,
  ) => sessionParams(runtime, session);
  hooks.sessionNew.tapPromise({ name: PLUGIN_NAME, stage: PROJECTION_STAGE }, project);
  hooks.sessionLoad.tapPromise({ name: PLUGIN_NAME, stage: PROJECTION_STAGE }, project);
  hooks.sessionResume.tapPromise({ name: PLUGIN_NAME, stage: PROJECTION_STAGE }, project);
  hooks.toolsListChanged.tapPromise(
    { name: PLUGIN_NAME, stage: REFRESH_STAGES.nativeReload },
    async (refresh) => {
      const operation = reloadOperation(refresh.session.declared);
      if (!operation || !refresh.handle.reload) return undefined;
      const { params } = await refresh.reproject(operation);
      return (await refresh.handle.reload(params)) ? REFRESH_STRATEGIES.nativeReload : undefined;
    },
  );
  host.registerProvider(createAcpProvider(descriptor));
}

/** `initialize`; undefined when it fails or times out (the session degrades to plain). */
async function probe(
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
