/**
 * The connector store: home folder and its layout version, content-addressed releases,
 * state and credentials.
 */
export * from './atomic-write.js';
export * from './credential-file.js';
export * from './home.js';
export { migrateHome } from './home-format/index.js';
export * from './release-copy.js';
export * from './release-files.js';
export * from './secret.js';
export * from './store.js';
export * from './store-types.js';
