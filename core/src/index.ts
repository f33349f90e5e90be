/** @tutti/core: contracts, errors and the connector runtime. */
export * from './contracts/index.js';
export * from './errors/index.js';
export * from './registry/index.js';
export * from './routes/index.js';
