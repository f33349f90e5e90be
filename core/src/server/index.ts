/** The loopback `connector` MCP server: both MCP surfaces, guards and listen streams. */
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
