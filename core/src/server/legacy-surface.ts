/**
 * The MCP 2025-06-18 surface (what Codex, Claude Code and opencode speak): `initialize`
 * with version negotiation and the connectors' instructions, `ping`, `tools/list`,
 * `tools/call` and empty resources (notifications are answered at the edge). Stateless:
 * nothing is kept between POSTs, and `tools.listChanged` is false because a POST-only
 * surface cannot deliver it.
 */
import type { ConnectorMCPRegistry } from '../registry/types.js';
import { isPlainObject } from '../util/objects.js';
import {
  LEGACY_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  RpcCode,
  SERVER_INFO,
} from './constants.js';
import type { InboundRequest } from './inbound-message.js';
import { perInstructions } from './instructions-member.js';
import { RpcError } from './json-rpc.js';
import type { RequestScope, SurfaceResult } from './surface.js';
import type { Tools } from './tool-call.js';

/** Serves one classified legacy request: its result JSON. */
export type LegacySurface = (
  request: InboundRequest,
  scope: RequestScope,
) => Promise<SurfaceResult>;

/** The version an `initialize` asking for `requested` gets. */
export function negotiateVersion(requested: unknown): string {
  return typeof requested === 'string' && LEGACY_PROTOCOL_VERSIONS.includes(requested)
    ? requested
    : LEGACY_PROTOCOL_VERSION;
}

/** What an `initialize` result holds after its `protocolVersion`, but the instructions. */
const INITIALIZE_TAIL = `,"capabilities":{"tools":{"listChanged":false}},"serverInfo":${JSON.stringify(SERVER_INFO)}`;

/** The `initialize` result for `params`; `tail` is what follows its `protocolVersion`. */
function initializeResult(params: unknown, tail: string): string {
  if (!isPlainObject(params) || typeof params.protocolVersion !== 'string') {
    throw new RpcError(RpcCode.InvalidParams, 'Invalid params: initialize needs "protocolVersion"');
  }
  return `{"protocolVersion":${JSON.stringify(negotiateVersion(params.protocolVersion))}${tail}}`;
}

/** The legacy surface of one server over `registry` and its `tools`. */
export function createLegacySurface(registry: ConnectorMCPRegistry, tools: Tools): LegacySurface {
  const initializeTail = perInstructions(registry, (member) => `${INITIALIZE_TAIL}${member}`);
  return async ({ method, params }, scope) => {
    switch (method) {
      case 'initialize':
        return initializeResult(params, initializeTail());
      case 'ping':
        return '{}';
      case 'tools/list':
        return tools.list(params);
      case 'tools/call':
        return JSON.stringify(await tools.call(params, scope));
      case 'resources/list':
        return '{"resources":[]}';
      case 'resources/templates/list':
        return '{"resourceTemplates":[]}';
      default:
        throw new RpcError(RpcCode.MethodNotFound, `Method not found: ${method}`);
    }
  };
}
