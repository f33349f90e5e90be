/**
 * The Claude SDK engine as a provider. A config-first kind: the projection is the `query()`
 * options (the caller's own options, the binding joined to their MCP servers, skills as a
 * local plugin, guidance appended to the system prompt), so a third-party tap sees and can
 * change the real options; the driver's `materialize` writes the skills plugin into the
 * session folder; `query()` then starts Claude Code through the host's spawn. Refresh:
 * Claude Code honours list_changed; its native reload is `setMcpServers`.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Options } from '@anthropic-ai/claude-agent-sdk';
import {
  type AgentProvider,
  createSkillPlugin,
  type LiveSession,
  type SessionSetup,
} from '@tutti/core';
import { ClaudeSdkSession } from './claude-sdk-session.js';
import type { EngineLogger } from './logger.js';
import {
  bindingsInOptions,
  buildQueryOptions,
  type ClaudeSessionOptions,
  withDaemonPermissions,
} from './query-options.js';

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
): AgentProvider<string, ClaudeSessionOptions> {
  const provider: AgentProvider<string, ClaudeSessionOptions> = {
    name: options.name ?? 'claude-sdk',
    flags: Object.freeze({ httpMcp: true, listChanged: true }),
    permissions: Object.freeze({
      modes: ['ask', 'allow-connector'] as const,
      toolNames: ['mcp__{server}__{tool}'],
    }),
    reopens: ['resume'],
    project: (runtime, session) =>
      withDaemonPermissions(
        session,
        buildQueryOptions(runtime, {
          ...(options.userOptions ? { userOptions: options.userOptions } : {}),
          ...(session.operation === 'resume' && session.providerSessionId
            ? { resume: session.providerSessionId }
            : { sessionId: randomUUID() }),
          ...(runtime.skillRoots.length > 0
            ? { skillPluginDir: join(session.filesDir, SKILLS_DIR) }
            : {}),
          ...(options.logger ? { logger: options.logger } : {}),
        }),
      ),
    bindingsIn: bindingsInOptions,
    driver: (setup) => ({
      async materialize(_params, runtime) {
        if (runtime.skillRoots.length === 0) return undefined;
        await setup.files.ensure();
        await createSkillPlugin(runtime.skillRoots, {
          dir: join(setup.files.dir, SKILLS_DIR),
          ...(options.logger ? { logger: options.logger } : {}),
        });
        return undefined;
      },
      async open(request) {
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
      },
      // A host's Claude Code takes new MCP servers live, from options projected to resume.
      hosted: () => ({
        async reload(reproject) {
          await reproject('resume');
          return true;
        },
      }),
    }),
  };
  return Object.freeze(provider);
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
    async reload(reproject) {
      const { params } = await reproject('resume');
      await sdk.setMcpServers(params.mcpServers ?? {});
      return true;
    },
    close: () => sdk.close(),
  };
}
