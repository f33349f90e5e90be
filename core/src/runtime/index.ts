/** The connector runtime: reconcile of installed connectors into live routes. */
export * from './backoff.js';
export * from './connector-runtime.js';
export * from './launch-upstream.js';
export * from './tracked-client.js';
export * from './types.js';
export * from './sign-in-target.js';
