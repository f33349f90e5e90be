/**
 * The Claude SDK engine as a provider, and the taps that make it one. A config-first kind:
 * the projection is the `query()` options (the caller's own options, the binding joined to
 * their MCP servers, skills as a local plugin, guidance appended to the system prompt), so
 * a tap sees and can change the real options; `materialize` writes the skills plugin into
 * the session folder; `query()` then starts Claude Code through the host's spawn.
 * Refresh: Claude Code honours list_changed; native reload is `setMcpServers`.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Options } from '@anthropic-ai/claude-agent-sdk';
import {
  type AgentProvider,
  type LiveSession,
  type OpenRequest,
  type PluginHost,
  type PreparedRuntime,
  PROJECTION_STAGE,
  providerHooks,
  REFRESH_STAGES,
  REFRESH_STRATEGIES,
  type SessionHookContext,
  type SessionSetup,
  createSkillPlugin,
} from '@tutti/core';
import { ClaudeSdkSession } from './claude-sdk-session.js';
import type { EngineLogger } from './logger.js';
import {
  bindingsInOptions,
  buildQueryOptions,
  type ClaudeSessionOptions,
  withDaemonPermissions,
} from './query-options.js';

const PLUGIN_NAME = 'ClaudeSdkProvider';
/** Folder of the session's skills plugin, inside the session folder. */
const SKILLS_DIR = 'claude-skills';

declare module '@tutti/core' {
  interface ProviderParamsMap {
    'claude-sdk': ClaudeSessionOptions;
  }
}

/** Options of {@link createClaudeSdkProvider}. */
export interface ClaudeSdkProviderOptions {
  /** Provider name (default `claude-sdk`). */
  readonly name?: string;
  /** Query options every session starts from (model, permission mode, setting sources...). */
  readonly userOptions?: Options;
  readonly logger?: EngineLogger;
}

/** The live session as the host sees it, plus the SDK session for turns and status. */
export interface ClaudeSdkProviderSession extends LiveSession<ClaudeSessionOptions> {
  readonly sdk: ClaudeSdkSession;
}

/** A provider for Claude Code sessions through the Agent SDK. */
export function createClaudeSdkProvider(
  options: ClaudeSdkProviderOptions = {},
): AgentProvider<string, undefined, ClaudeSessionOptions> {
  const open = async (request: OpenRequest<ClaudeSessionOptions, undefined>) => {
    const { setup } = request;
    const sdk = await ClaudeSdkSession.start({
      options: launchOptions(request.params, setup),
      spawn: (spec) =>
        setup.spawn({
          command: spec.command,
          args: spec.args,
          ...(spec.cwd ? { cwd: spec.cwd } : {}),
          env: definedEnv(spec.env),
          ...(spec.signal ? { signal: spec.signal } : {}),
        }),
    });
    return session(sdk);
  };
  return Object.freeze({
    name: options.name ?? 'claude-sdk',
    flags: Object.freeze({ httpMcp: true, listChanged: true }),
    permissions: Object.freeze({
      modes: ['ask', 'allow-connector'] as const,
      toolNames: ['mcp__{server}__{tool}'],
    }),
    bindingsIn: bindingsInOptions,
    async materialize(
      _params: ClaudeSessionOptions,
      runtime: PreparedRuntime,
      setup: SessionSetup,
    ) {
      if (runtime.skillRoots.length === 0) return undefined;
      await setup.files.ensure();
      await createSkillPlugin(runtime.skillRoots, {
        dir: join(setup.files.dir, SKILLS_DIR),
        ...(options.logger ? { logger: options.logger } : {}),
      });
      return undefined;
    },
    newSession: open,
    resumeSession: open,
  });
}

/** The options with the launch of the session: its executable and arguments, if given. */
function launchOptions(params: Options, setup: SessionSetup): Options {
  return {
    ...params,
    ...(setup.launch.command ? { pathToClaudeCodeExecutable: setup.launch.command } : {}),
    ...(setup.launch.args.length > 0 ? { executableArgs: [...setup.launch.args] } : {}),
  };
}

function definedEnv(env: Record<string, string | undefined>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

function session(sdk: ClaudeSdkSession): ClaudeSdkProviderSession {
  return {
    sdk,
    providerSessionId: sdk.sessionId,
    turn: (prompt, sink) => sdk.turn(prompt, sink),
    async reload(params) {
      await sdk.setMcpServers(params.mcpServers ?? {});
      return true;
    },
    close: () => sdk.close(),
  };
}

/** Registers the Claude SDK provider and taps its projection and refresh hooks. */
export function installClaudeSdkAgent(
  host: PluginHost,
  options: ClaudeSdkProviderOptions = {},
): void {
  const provider = createClaudeSdkProvider(options);
  // Every Claude SDK provider's hooks carry query options, whatever its name.
  const hooks = providerHooks(host.hooks, provider.name as 'claude-sdk');
  const project =
    (resume: boolean) =>
    async (_params: ClaudeSessionOptions, runtime: PreparedRuntime, session: SessionHookContext) =>
      withDaemonPermissions(
        session,
        buildQueryOptions(runtime, {
          ...(options.userOptions ? { userOptions: options.userOptions } : {}),
          ...(resume && session.providerSessionId
            ? { resume: session.providerSessionId }
            : { sessionId: randomUUID() }),
          ...(runtime.skillRoots.length > 0
            ? { skillPluginDir: join(session.filesDir, SKILLS_DIR) }
            : {}),
          ...(options.logger ? { logger: options.logger } : {}),
        }),
      );
  hooks.sessionNew.tapPromise({ name: PLUGIN_NAME, stage: PROJECTION_STAGE }, project(false));
  hooks.sessionResume.tapPromise({ name: PLUGIN_NAME, stage: PROJECTION_STAGE }, project(true));
  hooks.toolsListChanged.tapPromise(
    { name: PLUGIN_NAME, stage: REFRESH_STAGES.nativeReload },
    async (refresh) => {
      if (!refresh.handle.reload) return undefined;
      const { params } = await refresh.reproject('resume');
      return (await refresh.handle.reload(params)) ? REFRESH_STRATEGIES.nativeReload : undefined;
    },
  );
  host.registerProvider(provider);
}
