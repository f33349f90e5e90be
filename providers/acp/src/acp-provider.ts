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
  createSkillPlugin,
  TuttiError,
} from '@tutti/core';
import { join } from 'node:path';
import { type AcpConnection, connectAcp } from './acp-connection.js';
import { buildAgentHome, linkConnectorSkills, writeGuidance } from './agent-home.js';
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
      const declared = request.state.initialize?.agentCapabilities as
        | Readonly<Record<string, unknown>>
        | undefined;
      const sessionCaps = declared?.sessionCapabilities as Record<string, unknown> | undefined;
      if (
        (method === 'session/resume' && !sessionCaps?.resume) ||
        (method === 'session/load' && !declared?.loadSession)
      ) {
        throw new TuttiError('TUTTI_ERR_SESSION_UNSUPPORTED', {
          provider: descriptor.name,
          operation: method === 'session/resume' ? 'resume' : 'load',
        });
      }
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
    async prelaunch(setup: SessionSetup) {
      const env: Record<string, string> = {};
      const args: string[] = [];
      for (const name of setup.settings) {
        const setting = descriptor.settings?.[name];
        if (!setting) {
          throw new TuttiError('TUTTI_ERR_SESSION_UNKNOWN_SETTING', {
            provider: descriptor.name,
            setting: name,
            known: Object.keys(descriptor.settings ?? {}).join(', ') || '(none)',
          });
        }
        Object.assign(env, setting.env);
        args.push(...(setting.args ?? []));
      }
      if (descriptor.home) {
        env[descriptor.home.env] = await buildAgentHome(
          setup.files,
          descriptor.home,
          descriptor.skills ?? { via: 'none' },
          descriptor.guidance ?? { via: 'none' },
          { ...setup.launch.env, ...env },
        );
      }
      return { env, args };
    },
    async materialize(_params: AcpSessionParams, runtime: PreparedRuntime, setup: SessionSetup) {
      // A plain session gets no connector skills and no guidance.
      if (runtime.mcpServers.length === 0) return undefined;
      const skills = descriptor.skills ?? { via: 'none' };
      if (skills.via === 'home' && descriptor.home) {
        await linkConnectorSkills(setup.files, skills, runtime.skillRoots);
      } else if (skills.via === 'claude-plugin' && runtime.skillRoots.length > 0) {
        await setup.files.ensure();
        await createSkillPlugin(runtime.skillRoots, { dir: join(setup.files.dir, PLUGIN_DIR) });
      }
      const guidance = descriptor.guidance ?? { via: 'none' };
      if (
        runtime.guidance &&
        descriptor.home &&
        (guidance.via === 'home-file' || guidance.via === 'config-file')
      ) {
        await writeGuidance(setup.files, guidance, runtime.guidance, descriptor.home, runtime.env);
      }
      return undefined;
    },
    bindingsIn: (params: AcpSessionParams) => bindingsInParams(params),
    newSession: open('session/new'),
    loadSession: open('session/load'),
    resumeSession: open('session/resume'),
  });
}

/** The descriptors installed per hook table, by name: taps read the current one. */
const installed = new WeakMap<object, Map<string, { current: AcpAgentDescriptor }>>();

/**
 * Registers the provider of `descriptor` on `host` and taps its projection and refresh
 * hooks; installing a descriptor of a name this plugin installed before replaces it (the
 * next session uses it; the taps are not doubled).
 */
export function installAcpAgent(host: PluginHost, descriptor: AcpAgentDescriptor): void {
  let byName = installed.get(host.hooks);
  if (!byName) {
    byName = new Map();
    installed.set(host.hooks, byName);
  }
  const existing = byName.get(descriptor.name);
  if (existing) {
    existing.current = descriptor;
    host.registerProvider(createAcpProvider(descriptor), { replace: true });
    return;
  }
  const holder = { current: descriptor };
  byName.set(descriptor.name, holder);
  // Every ACP agent's hooks carry ACP session params, whatever the descriptor's name.
  const hooks = providerHooks(host.hooks, descriptor.name as 'acp');
  const project = async (
    _params: AcpSessionParams,
    runtime: PreparedRuntime,
    session: SessionHookContext,
  ) => withMeta(sessionParams(runtime, session), holder.current, runtime, session);
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

/** Folder of a Claude Code plugin with the connector skills, inside the session folder. */
const PLUGIN_DIR = 'claude-skills';

/** Sets `value` at a dotted `path` of `target`, keeping what is there. */
function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    node[key] = next && typeof next === 'object' && !Array.isArray(next) ? { ...next } : {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1]!] = value;
}

/** `value` with `"{name}"` strings replaced by `values[name]`. */
function fill(value: unknown, values: Record<string, string>): unknown {
  if (typeof value === 'string') {
    return value.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
  }
  if (Array.isArray(value)) return value.map((item) => fill(item, values));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, values)]));
  }
  return value;
}

/** The params with what the descriptor delivers through `session/new` `_meta` (bound only). */
function withMeta(
  params: AcpSessionParams,
  descriptor: AcpAgentDescriptor,
  runtime: PreparedRuntime,
  session: SessionHookContext,
): AcpSessionParams {
  if (runtime.mcpServers.length === 0) return params;
  const meta: Record<string, unknown> = { ...params._meta };
  const { skills, guidance } = descriptor;
  if (skills?.via === 'claude-plugin' && runtime.skillRoots.length > 0) {
    setPath(meta, skills.path, fill(skills.value, { dir: join(session.filesDir, PLUGIN_DIR) }));
  }
  if (guidance?.via === 'meta' && runtime.guidance) {
    setPath(meta, guidance.path, fill(guidance.value, { guidance: runtime.guidance }));
  }
  return Object.keys(meta).length > 0 ? { ...params, _meta: meta } : params;
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
