/** Connector release manifests: schema, parsing, validation and path resolution. */
export * from './manifest-issues.js';
export * from './manifest-schema.js';
export * from './read-manifest.js';
export * from './release-paths.js';
export * from './sandbox-schema.js';
