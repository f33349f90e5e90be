/** @tutti/core: contracts, errors and the connector runtime. */
export * from './contracts/index.js';
export * from './errors/index.js';
export * from './registry/index.js';
export * from './routes/index.js';
export * from './process/index.js';
export * from './upstream/index.js';
export * from './shims/index.js';
export * from './skills/index.js';
export * from './guidance/index.js';
export * from './manifest/index.js';
export * from './store/index.js';
export * from './auth/index.js';
export * from './server/index.js';
export * from './session/index.js';
export * from './plugins/index.js';
export * from './runtime/index.js';
export * from './daemon/index.js';
