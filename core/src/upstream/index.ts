/** Upstream MCP clients: managed stdio servers and remote Streamable HTTP servers. */
export * from './coalescing-runner.js';
export * from './list-tools.js';
export * from './open-http.js';
export * from './open-stdio.js';
export * from './process-group-transport.js';
export * from './proxy-fetch.js';
export * from './types.js';
export * from './upstream-connection.js';
