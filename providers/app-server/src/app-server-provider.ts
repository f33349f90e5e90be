/**
 * The app-server engine as a provider (Codex, Tutti Agent). A config-first kind: the
 * projection is the session's `config.toml` table (the user's config plus the binding), so
 * every third-party tap of the provider's hooks sees and can extend the real config; the
 * driver's `materialize` writes it into the session home; the agent is spawned on that home
 * and a thread is started or resumed. Refresh: a reconnect before the next turn.
 */
import type {
  AgentProvider,
  LiveSession,
  MCPServerBinding,
  OpenRequest,
  SessionSetup,
} from '@tutti/core';
import { AppServerEngine } from './app-server-engine.js';
import { appServerTurns } from './app-server-turn.js';
import { type TomlTable, withDaemonApprovals, withGuidance } from './codex-config.js';
import type { AppServerDescriptor } from './descriptor.js';
import { type EngineLogger, sessionConfig, sessionHome, writeSessionHome } from './session-home.js';

/** The params of an app-server session: the `config.toml` table that will be written. */
export type AppServerSessionConfig = TomlTable;

declare module '@tutti/core' {
  interface ProviderParamsMap {
    codex: AppServerSessionConfig;
    'tutti-agent': AppServerSessionConfig;
  }
}

/** Options of {@link createAppServerProvider}. */
export interface AppServerProviderOptions {
  readonly logger?: EngineLogger;
}

/** The live session as the host sees it, plus the engine for turns and tool calls. */
export interface AppServerProviderSession extends LiveSession<AppServerSessionConfig> {
  readonly engine: AppServerEngine;
}

/** The bindings the config's `[mcp_servers.*]` tables carry (url plus `http_headers`). */
export function bindingsInConfig(config: AppServerSessionConfig): MCPServerBinding[] {
  const servers = config.mcp_servers;
  if (!servers || typeof servers !== 'object' || Array.isArray(servers)) return [];
  return Object.entries(servers as Record<string, unknown>).flatMap(([name, server]) => {
    const table = server as { url?: unknown; http_headers?: unknown };
    if (typeof table?.url !== 'string') return [];
    const headers =
      table.http_headers && typeof table.http_headers === 'object'
        ? (table.http_headers as Record<string, string>)
        : {};
    return [{ name, type: 'http', url: table.url, headers: { ...headers } } as MCPServerBinding];
  });
}

/** A provider driving the app-server agent `descriptor` describes. */
export function createAppServerProvider(
  descriptor: AppServerDescriptor,
  options: AppServerProviderOptions = {},
): AgentProvider<string, AppServerSessionConfig> {
  const provider: AgentProvider<string, AppServerSessionConfig> = {
    name: descriptor.id,
    flags: Object.freeze({ httpMcp: true, listChanged: false }),
    // Codex names an approval's server and tool in fields of its own: no naming form needed.
    permissions: Object.freeze({ modes: ['ask', 'allow-connector'] as const, toolNames: [] }),
    launch: Object.freeze({ command: descriptor.command, args: [...descriptor.args] }),
    reopens: ['resume'],
    async project(runtime, session) {
      const servers = await sessionConfig(descriptor, runtime.mcpServers, options.logger);
      const config = withGuidance(servers, runtime.guidance);
      return session.drivenBy === 'daemon'
        ? withDaemonApprovals(config, session.permissions, runtime.cwd)
        : config;
    },
    bindingsIn: bindingsInConfig,
    driver: (setup) => ({
      async materialize(config) {
        const home = await writeSessionHome(setup.files, descriptor, config);
        return { env: { [descriptor.homeEnvVar]: home.dir } };
      },
      open: (request) => openThread(descriptor, setup, request, options),
      // A host-driven Codex picks up new connectors when its host reconnects it.
      hosted: () => ({ reconnectBeforeNextTurn: async () => true }),
    }),
  };
  return Object.freeze(provider);
}

/** Starts the app-server on the session home and starts or resumes its thread. */
async function openThread(
  descriptor: AppServerDescriptor,
  setup: SessionSetup,
  request: OpenRequest<AppServerSessionConfig>,
  options: AppServerProviderOptions,
): Promise<AppServerProviderSession> {
  const engine = await AppServerEngine.start({
    descriptor,
    prepared: request.runtime,
    // Codex refuses "untrusted" in config.toml; per thread it asks for every command.
    ...(setup.session.permissions === 'agent'
      ? {}
      : { threadParams: { approvalPolicy: 'untrusted' } }),
    home: sessionHome(setup.files, descriptor),
    spawn: () => setup.spawn({ env: request.env }),
    requestTimeoutMs: setup.timeoutMs,
    ...(options.logger ? { logger: options.logger } : {}),
  });
  try {
    const threadId =
      request.operation === 'resume' && request.providerSessionId
        ? await engine.resumeThread(request.providerSessionId)
        : await engine.startThread();
    return session(engine, threadId, request.runtime.mcpServers.length > 0, descriptor.id);
  } catch (error) {
    await engine.close();
    throw error;
  }
}

function session(
  engine: AppServerEngine,
  threadId: string,
  bound: boolean,
  provider: string,
): AppServerProviderSession {
  return {
    engine,
    providerSessionId: threadId,
    turn: appServerTurns(engine, threadId, provider),
    async reconnectBeforeNextTurn() {
      if (!bound) return false;
      engine.reconnectBeforeNextTurn();
      return true;
    },
    close: () => engine.close(),
  };
}
