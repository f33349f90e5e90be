/** @tutti/core: contracts, errors and the connector runtime. */
export * from './contracts/index.js';
export * from './errors/index.js';
