export * from './connector-route.js';
export * from './json.js';
export * from './mcp-server-binding.js';
export * from './prepared-runtime.js';
export * from './provider-capabilities.js';
export * from './elicitation.js';
export * from './installed-agents.js';
