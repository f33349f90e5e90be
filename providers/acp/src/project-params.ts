/**
 * Projects the one PreparedRuntime into ACP `session/new`, `session/load` and
 * `session/resume` params: the binding as an HTTP MCP server with headers as a
 * `{ name, value }` array, skill roots and guidance under `_meta.tutti` (ACP has no field
 * of its own for them) and, when the agent supports it, skill roots as
 * `additionalDirectories` so the agent may read them.
 */
import type { McpServer } from '@agentclientprotocol/sdk';
import type { PreparedRuntime } from '@tutti/core';

/** Key under `_meta` that carries tutti's session context. */
export const META_KEY = 'tutti';

/** ACP form of the runtime's MCP servers (empty for a plain runtime). */
export function acpMcpServers(runtime: PreparedRuntime): McpServer[] {
  return runtime.mcpServers.map((binding) => ({
    type: 'http',
    name: binding.name,
    url: binding.url,
    headers: Object.entries(binding.headers).map(([name, value]) => ({ name, value })),
  }));
}

/** What the agent declared that changes the projection. */
export interface ProjectionOptions {
  readonly additionalDirectories: boolean;
}

/** Params shared by `session/new`, `session/load` and `session/resume`. */
export function sessionParams(
  runtime: PreparedRuntime,
  options: ProjectionOptions,
): Record<string, unknown> {
  const params: Record<string, unknown> = {
    cwd: runtime.cwd,
    mcpServers: acpMcpServers(runtime),
  };
  if (runtime.skillRoots.length > 0 && options.additionalDirectories) {
    params.additionalDirectories = [...runtime.skillRoots];
  }
  if (runtime.skillRoots.length > 0 || runtime.guidance) {
    params._meta = {
      [META_KEY]: {
        skillRoots: [...runtime.skillRoots],
        ...(runtime.guidance ? { guidance: runtime.guidance } : {}),
      },
    };
  }
  return params;
}
