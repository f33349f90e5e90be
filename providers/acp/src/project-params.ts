/**
 * Projects the one PreparedRuntime into ACP `session/new`, `session/load` and
 * `session/resume` params: the binding as an HTTP MCP server with headers as a
 * `{ name, value }` array, skill roots and guidance under `_meta.tutti` (ACP has no field
 * of its own for them) and, when the agent supports it, skill roots as
 * `additionalDirectories` so the agent may read them. Reads the bindings back for the
 * host's binding check.
 */
import type { McpServer } from '@agentclientprotocol/sdk';
import type { MCPServerBinding, PreparedRuntime, SessionHookContext } from '@tutti/core';

/** Key under `_meta` that carries tutti's session context. */
export const META_KEY = 'tutti';

/** The params of `session/new`, `session/load` and `session/resume` as taps see them. */
export interface AcpSessionParams {
  cwd: string;
  mcpServers: McpServer[];
  /** Present for `session/load` and `session/resume`. */
  sessionId?: string;
  additionalDirectories?: string[];
  _meta?: Record<string, unknown>;
  [key: string]: unknown;
}

/** ACP form of the runtime's MCP servers (empty for a plain runtime). */
export function acpMcpServers(runtime: PreparedRuntime): McpServer[] {
  return runtime.mcpServers.map((binding) => ({
    type: 'http',
    name: binding.name,
    url: binding.url,
    headers: Object.entries(binding.headers).map(([name, value]) => ({ name, value })),
  }));
}

/** The HTTP MCP servers of `params` in the provider-neutral binding form. */
export function bindingsInParams(params: AcpSessionParams): MCPServerBinding[] {
  const servers = Array.isArray(params.mcpServers) ? params.mcpServers : [];
  return servers.flatMap((server) => {
    if (!server || typeof server !== 'object' || !('type' in server) || server.type !== 'http') {
      return [];
    }
    const headers = Array.isArray(server.headers) ? server.headers : [];
    return [
      {
        name: server.name,
        type: 'http',
        url: server.url,
        headers: Object.fromEntries(headers.map((header) => [header.name, header.value])),
      } as MCPServerBinding,
    ];
  });
}

/** Whether the agent declared support for `additionalDirectories` in its handshake. */
function takesDirectories(declared: Readonly<Record<string, unknown>> | undefined): boolean {
  const sessionCapabilities = declared?.sessionCapabilities as Record<string, unknown> | undefined;
  return Boolean(sessionCapabilities?.additionalDirectories);
}

/** The projection of `runtime` for the operation `session` names. */
export function sessionParams(
  runtime: PreparedRuntime,
  session: Pick<SessionHookContext, 'operation' | 'providerSessionId' | 'declared'>,
): AcpSessionParams {
  const params: AcpSessionParams = {
    ...(session.operation === 'new' ? {} : { sessionId: session.providerSessionId ?? '' }),
    cwd: runtime.cwd,
    mcpServers: acpMcpServers(runtime),
  };
  if (runtime.skillRoots.length > 0 && takesDirectories(session.declared)) {
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
