/**
 * The loopback `connector` MCP server: both MCP surfaces, guards, listen streams and the
 * board of elicitations relayed to agents.
 */
export {
  createConnectorServer,
  type ConnectorServer,
  type ConnectorServerOptions,
} from './connector-server.js';
export {
  CONNECTOR_ENDPOINT,
  LEGACY_PROTOCOL_VERSION,
  LEGACY_PROTOCOL_VERSIONS,
  MODERN_PROTOCOL_VERSION,
} from './constants.js';
export { REDACTED_PATHS } from './logger.js';
export type { ElicitationBoard } from './elicitation-board.js';
