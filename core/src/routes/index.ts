/** The RouteRegistry: generation-fenced discover metadata, listed as `ConnectorSummary`. */
export * from './connector-summary.js';
export * from './route-registry.js';
export * from './interface-status.js';
