/**
 * The app-server engine as a tutti provider, one per descriptor. `newSession` prepares the
 * runtime (app-server agents take Streamable HTTP servers), writes it into the session
 * home, and sends `thread/start` params through the `sessionNew` waterfall. Refresh is a
 * reconnect before the next turn: `config/mcpServer/reload` was measured not to reach a
 * loaded thread, so no native reload is declared.
 */
import type {
  AgentProvider,
  ProviderParams,
  ProviderSession,
  ProviderSessionContext,
} from '@tutti/core';
import { AppServerEngine } from './app-server-engine.js';
import type { AppServerDescriptor } from './descriptor.js';
import type { EngineLogger } from './session-home.js';

/** Options of {@link createAppServerProvider}. */
export interface AppServerProviderOptions {
  readonly logger?: EngineLogger;
  /** Parent folder of session homes (default: OS temp folder). */
  readonly baseDir?: string;
}

/** A provider driving the app-server agent `descriptor` describes. */
export function createAppServerProvider(
  descriptor: AppServerDescriptor,
  options: AppServerProviderOptions = {},
): AgentProvider {
  return Object.freeze({
    name: descriptor.id,
    capabilities: Object.freeze({
      httpMcp: true,
      reconnectBeforeTurn: true,
      skills: true,
    }),
    newSession: (context: ProviderSessionContext) => openSession(descriptor, options, context),
  });
}

/** The live session as the host sees it, plus the engine for turns and tool calls. */
export interface AppServerProviderSession extends ProviderSession {
  readonly engine: AppServerEngine;
}

async function openSession(
  descriptor: AppServerDescriptor,
  options: AppServerProviderOptions,
  context: ProviderSessionContext,
): Promise<AppServerProviderSession> {
  const runtime = await context.prepare({ httpMcp: true });
  const { launch } = context;
  const engine = await AppServerEngine.start({
    descriptor: {
      ...descriptor,
      command: launch.command ?? descriptor.command,
      args: launch.args ?? descriptor.args,
    },
    prepared: { ...runtime, env: { ...runtime.env, ...launch.env } },
    processes: context.processes,
    ...(options.baseDir ? { baseDir: options.baseDir } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
  });
  try {
    const params = await context.hooks.sessionNew.promise(
      { cwd: runtime.cwd } as ProviderParams,
      runtime,
      context.session,
    );
    const threadId = await engine.startThread(params);
    return {
      engine,
      providerSessionId: threadId,
      connector: runtime.mcpServers.length > 0 ? 'bound' : 'plain',
      pid: engine.pid,
      async reconnectBeforeNextTurn() {
        if (runtime.mcpServers.length === 0) return false;
        engine.reconnectBeforeNextTurn();
        return true;
      },
      onExit: (listener) => engine.onExit(listener),
      close: () => engine.close(),
    };
  } catch (error) {
    await engine.close();
    throw error;
  }
}
