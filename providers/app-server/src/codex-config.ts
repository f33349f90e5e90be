/**
 * The session's `config.toml`: the user's own config, kept in meaning, plus one
 * `[mcp_servers.<name>]` table per prepared binding (`url` + `http_headers`). Parsed and
 * written with `@iarna/toml`, never edited as a string.
 */
import TOML from '@iarna/toml';
import type { MCPServerBinding, PermissionMode } from '@tutti/core';

/** A parsed TOML document. */
export type TomlTable = ReturnType<typeof TOML.parse>;

/** Result of {@link projectBindings}. */
export interface ProjectedConfig {
  /** The merged config to write. */
  readonly config: TomlTable;
  /** Names of user servers the bindings replaced (ours win). */
  readonly replaced: readonly string[];
}

/** Parses a config file's text; throws the TOML parser's error (with line and column). */
export function parseConfig(text: string): TomlTable {
  return TOML.parse(text);
}

/** Serializes a config for `config.toml`. */
export function stringifyConfig(config: TomlTable): string {
  return TOML.stringify(config);
}

/**
 * Adds each binding as `[mcp_servers.<name>]` to a copy of the user's config. Other user
 * servers stay as they are; a user server with a binding's name is replaced.
 */
export function projectBindings(
  userConfig: TomlTable,
  bindings: readonly MCPServerBinding[],
): ProjectedConfig {
  // Shallow copies only: everything but `mcp_servers.<binding name>` is shared, unchanged.
  const config: TomlTable = { ...userConfig };
  const existing = config.mcp_servers;
  const servers: TomlTable =
    existing &&
    typeof existing === 'object' &&
    !Array.isArray(existing) &&
    !(existing instanceof Date)
      ? { ...(existing as TomlTable) }
      : {};
  const replaced: string[] = [];
  for (const binding of bindings) {
    if (binding.name in servers) replaced.push(binding.name);
    servers[binding.name] = { url: binding.url, http_headers: { ...binding.headers } };
  }
  if (bindings.length > 0) config.mcp_servers = servers;
  return { config, replaced };
}

/**
 * A daemon-driven session's approvals go to the daemon's turn permissions (the thread is
 * started with `approvalPolicy: "untrusted"`, which asks for every command and patch):
 * every MCP server's tools ask (`default_tools_approval_mode = "prompt"`), but in
 * `allow-connector` mode the `connector` server's tools run unasked (`"approve"`); the
 * workspace is marked untrusted, so its own `.codex/` (rules that allow commands, server
 * approval modes) has no say. Under `agent` the user's config stands as it is.
 */
export function withDaemonApprovals(
  config: TomlTable,
  permissions: PermissionMode,
  cwd: string,
): TomlTable {
  if (permissions === 'agent') return config;
  const servers = tableOf(config.mcp_servers);
  const approvals: TomlTable = {};
  for (const [name, server] of Object.entries(servers)) {
    approvals[name] = {
      ...tableOf(server),
      default_tools_approval_mode:
        name === 'connector' && permissions === 'allow-connector' ? 'approve' : 'prompt',
    };
  }
  const projects = tableOf(config.projects);
  return {
    ...config,
    ...(Object.keys(approvals).length > 0 ? { mcp_servers: approvals } : {}),
    projects: { ...projects, [cwd]: { ...tableOf(projects[cwd]), trust_level: 'untrusted' } },
  };
}

/** `value` as a table, or an empty one when it is not a table. */
function tableOf(value: unknown): TomlTable {
  return value && typeof value === 'object' && !Array.isArray(value) && !(value instanceof Date)
    ? (value as TomlTable)
    : {};
}

/**
 * The guidance in the agent's own instructions: `developer_instructions`, after the
 * user's own ones when their config has some.
 */
export function withGuidance(config: TomlTable, guidance: string | undefined): TomlTable {
  if (!guidance) return config;
  const own =
    typeof config.developer_instructions === 'string' ? config.developer_instructions : '';
  return { ...config, developer_instructions: own ? `${own.trimEnd()}\n\n${guidance}` : guidance };
}
