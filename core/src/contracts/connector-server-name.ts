/** The name of the one aggregated MCP server, in a module of its own so light clients need no zod. */

/** Name of the single aggregated server every agent session sees. */
export const CONNECTOR_SERVER_NAME = 'connector';
