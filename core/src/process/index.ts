/** Process supervision: detached process groups, a reaper watchdog, exit handlers. */
export * from './default-supervisor.js';
export * from './exit-handlers.js';
export * from './process-group.js';
export * from './reaper.js';
export * from './spawn-detached.js';
export * from './stderr-tail.js';
export * from './supervisor.js';
export * from './tracked-group.js';
export * from './agent-process.js';
export * from './inherited-env.js';
export * from './secret-redactor.js';
export * from './process-tree.js';
export * from './subreaper.js';
