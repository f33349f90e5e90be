/**
 * Projects a `PreparedRuntime` onto Claude Agent SDK `query()` options: the prepared
 * bindings join (never replace) the caller's own MCP servers, are sent over stdin
 * (`mcpServersDelivery: 'initialize'`, so no header lands on a command line), and skill
 * roots arrive as a local plugin whose skills Claude Code's own scanner loads.
 */
import type { McpServerConfig, Options } from '@anthropic-ai/claude-agent-sdk';
import type { MCPServerBinding, PreparedRuntime, SessionHookContext } from '@tutti/core';
import type { EngineLogger } from './logger.js';

/** The params of a Claude SDK session: the `query()` options taps see and change. */
export type ClaudeSessionOptions = Options;

/** The HTTP MCP servers of `options` in the provider-neutral binding form. */
export function bindingsInOptions(options: Options): MCPServerBinding[] {
  return Object.entries(options.mcpServers ?? {}).flatMap(([name, server]) =>
    server && (server as { type?: string }).type === 'http'
      ? [
          {
            name,
            type: 'http',
            url: (server as { url: string }).url,
            headers: { ...((server as { headers?: Record<string, string> }).headers ?? {}) },
          } as MCPServerBinding,
        ]
      : [],
  );
}

/** Inputs of {@link buildQueryOptions} besides the prepared runtime. */
export interface QueryOptionsInput {
  /** The caller's own options (their MCP servers, model, permission mode, ...). */
  readonly userOptions?: Options;
  /** Session id to resume. */
  readonly resume?: string;
  /** Session id for a new session (a UUID). */
  readonly sessionId?: string;
  /** Folder of the session's skill plugin (see `createSkillPlugin`), if any skills. */
  readonly skillPluginDir?: string;
  readonly logger?: EngineLogger;
}

/** The bindings as the SDK's `mcpServers` map (headers are a map here). */
export function bindingsToMcpServers(
  bindings: readonly MCPServerBinding[],
): Record<string, McpServerConfig> {
  return Object.fromEntries(
    bindings.map((binding) => [
      binding.name,
      { type: 'http', url: binding.url, headers: { ...binding.headers } },
    ]),
  );
}

/** Merges bindings into the caller's servers; a caller server with a binding's name is replaced. */
export function mergeMcpServers(
  userServers: Record<string, McpServerConfig> | undefined,
  bindings: readonly MCPServerBinding[],
  logger?: EngineLogger,
): Record<string, McpServerConfig> {
  const ours = bindingsToMcpServers(bindings);
  for (const name of Object.keys(ours)) {
    if (userServers && name in userServers) {
      logger?.warn(
        { server: name },
        'the caller passed an MCP server with the name of a tutti binding; the binding replaces it in this session',
      );
    }
  }
  return { ...userServers, ...ours };
}

/**
 * Builds the `query()` options of one session.
 * @example query({ prompt, options: buildQueryOptions(prepared, { userOptions }) })
 */
export function buildQueryOptions(
  prepared: PreparedRuntime,
  input: QueryOptionsInput = {},
): Options {
  const user = input.userOptions ?? {};
  const options: Options = {
    ...user,
    cwd: prepared.cwd,
    env: { ...user.env, ...prepared.env },
    mcpServers: mergeMcpServers(user.mcpServers, prepared.mcpServers, input.logger),
    mcpServersDelivery: 'initialize',
  };
  if (input.skillPluginDir) {
    options.plugins = [
      ...(user.plugins ?? []),
      { type: 'local', path: input.skillPluginDir, skipMcpDiscovery: true },
    ];
  }
  if (prepared.guidance && user.systemPrompt === undefined) {
    options.systemPrompt = { type: 'preset', preset: 'claude_code', append: prepared.guidance };
  }
  if (input.resume) options.resume = input.resume;
  else if (input.sessionId) options.sessionId = input.sessionId;
  return options;
}

/**
 * The approvals of a daemon-driven session go to the daemon's turn permissions. Under `ask`
 * and `allow-connector` Claude Code runs in its `default` permission mode with only the
 * daemon's rules in force: the caller's `allowedTools` and every allow rule of the user's,
 * the project's or the local settings files are ignored (`allowManagedPermissionRulesOnly`)
 * and bypass mode is off, so each tool call that needs an approval comes to `canUseTool`,
 * where the turn decides (a `connector` tool it proves runs unasked under
 * `allow-connector`). Under `agent` the caller's options and the user's rules stand.
 */
export function withDaemonPermissions(
  session: Pick<SessionHookContext, 'drivenBy' | 'permissions'>,
  options: Options,
): Options {
  if (session.drivenBy !== 'daemon' || session.permissions === 'agent') return options;
  const { allowedTools: _ignored, ...rest } = options;
  const managed = options.managedSettings ?? {};
  return {
    ...rest,
    permissionMode: 'default',
    managedSettings: {
      ...managed,
      allowManagedPermissionRulesOnly: true,
      permissions: { ...managed.permissions, disableBypassPermissionsMode: 'disable' },
    },
  };
}
