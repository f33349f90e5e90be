/** The ConnectorMCPRegistry: generation-fenced routes, canonical names, prepared tools/list. */
export * from './connector-mcp-registry.js';
export * from './generation-fence.js';
export * from './input-schema.js';
export * from './local-name.js';
export * from './types.js';
