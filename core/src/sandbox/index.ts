/** Isolation of connector stdio servers (docs/sandbox.md). */
export * from './bubblewrap.js';
export * from './connector-sandbox.js';
export * from './server-env.js';
export * from './server-policy.js';
export * from './types.js';
