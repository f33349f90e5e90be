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
 * A daemon-driven session's approvals go to the daemon's turn permissions: the agent asks
 * for each one (`on-request`), and in `allow-connector` mode the `connector` server's tools
 * run without asking (`default_tools_approval_mode = "approve"`).
 */
export function withDaemonApprovals(config: TomlTable, permissions: PermissionMode): TomlTable {
  const next: TomlTable = { ...config, approval_policy: 'on-request' };
  const servers = next.mcp_servers as Record<string, Record<string, unknown>> | undefined;
  if (permissions === 'allow-connector' && servers?.connector) {
    next.mcp_servers = {
      ...servers,
      connector: { ...servers.connector, default_tools_approval_mode: 'approve' },
    };
  }
  return next;
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
