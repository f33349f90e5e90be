/**
 * The Claude SDK engine as a tutti provider: `newSession` / `resumeSession` prepare the
 * runtime, run the projected `query()` options through the `sessionNew` / `sessionResume`
 * waterfall (a tap may change anything but the connector binding), and start a session.
 * Refresh: Claude Code honours list_changed; native reload is `setMcpServers`.
 */
import { isDeepStrictEqual } from 'node:util';
import type { Options } from '@anthropic-ai/claude-agent-sdk';
import {
  type AgentProvider,
  type PreparedRuntime,
  type ProviderParams,
  type ProviderSession,
  type ProviderSessionContext,
  TuttiError,
} from '@tutti/core';
import { ClaudeSdkSession } from './claude-sdk-session.js';
import type { EngineLogger } from './logger.js';
import { bindingsToMcpServers } from './query-options.js';

/** Options of {@link createClaudeSdkProvider}. */
export interface ClaudeSdkProviderOptions {
  /** Provider name (default `claude-sdk`). */
  readonly name?: string;
  /** Query options every session starts from (model, permission mode, setting sources...). */
  readonly userOptions?: Options;
  readonly logger?: EngineLogger;
}

/** The live session as the host sees it, plus the SDK session for turns and status. */
export interface ClaudeSdkProviderSession extends ProviderSession {
  readonly sdk: ClaudeSdkSession;
}

type Kind = 'new' | 'resume';
const HOOKS = { new: 'sessionNew', resume: 'sessionResume' } as const;

/** A provider for Claude Code sessions through the Agent SDK. */
export function createClaudeSdkProvider(options: ClaudeSdkProviderOptions = {}): AgentProvider {
  const name = options.name ?? 'claude-sdk';
  const open = (kind: Kind, context: ProviderSessionContext, resume?: string) =>
    openSession(options, kind, context, resume);
  return Object.freeze({
    name,
    capabilities: Object.freeze({
      httpMcp: true,
      listChanged: true,
      nativeReload: true,
      resume: true,
      skills: true,
    }),
    newSession: (context: ProviderSessionContext) => open('new', context),
    resumeSession: (context: ProviderSessionContext, id: string) => open('resume', context, id),
  });
}

async function openSession(
  options: ClaudeSdkProviderOptions,
  kind: Kind,
  context: ProviderSessionContext,
  resume: string | undefined,
): Promise<ClaudeSdkProviderSession> {
  // Claude Code's MCP client takes Streamable HTTP servers (measured), so no probe.
  const runtime = await context.prepare({ httpMcp: true });
  const launch = context.launch;
  const userOptions: Options = {
    ...options.userOptions,
    ...(launch.command ? { pathToClaudeCodeExecutable: launch.command } : {}),
    ...(launch.args ? { executableArgs: [...launch.args] } : {}),
  };
  const prepared: PreparedRuntime = { ...runtime, env: { ...runtime.env, ...launch.env } };
  const session = await ClaudeSdkSession.start({
    prepared,
    userOptions,
    processes: context.processes,
    ...(resume ? { resume } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    transformOptions: async (projected) => {
      const hook = context.hooks[HOOKS[kind]];
      const params = (await hook.promise(
        projected as ProviderParams,
        runtime,
        context.session,
      )) as Options;
      assertBindingKept(params, runtime, context, kind);
      return params;
    },
  });
  return {
    sdk: session,
    providerSessionId: session.sessionId,
    connector: runtime.mcpServers.length > 0 ? 'bound' : 'plain',
    ...(session.pid === undefined ? {} : { pid: session.pid }),
    async reload(rebind) {
      if (runtime.mcpServers.length === 0) return false;
      const next = await rebind();
      await session.rebind(next.mcpServers);
      return true;
    },
    close: () => session.close(),
  };
}

/** Throws when a hook tap removed or changed a prepared binding. */
function assertBindingKept(
  params: Options,
  runtime: PreparedRuntime,
  context: ProviderSessionContext,
  kind: Kind,
): void {
  const expected = bindingsToMcpServers(runtime.mcpServers);
  for (const [server, config] of Object.entries(expected)) {
    if (!isDeepStrictEqual(params.mcpServers?.[server], config)) {
      throw new TuttiError('TUTTI_ERR_PROVIDER_BINDING_DROPPED', {
        hook: HOOKS[kind],
        method: 'query',
        session: context.session.agentSessionId,
      });
    }
  }
}
