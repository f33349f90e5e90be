/** The connector catalog: generation-fenced discover metadata, listed as `ConnectorSummary`. */
export * from './connector-summary.js';
export * from './connector-catalog.js';
export * from './interface-status.js';
