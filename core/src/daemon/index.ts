/** The daemon: composition root, control API, daemon file and metrics. */
export * from './control-app.js';
export * from './control-endpoints.js';
export * from './daemon.js';
export * from './daemon-file.js';
export * from './home-lock.js';
export * from './metrics.js';
