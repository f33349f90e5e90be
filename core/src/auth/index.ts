/** Bearer tokens of agent sessions for the loopback `connector` server. */
export * from './token-service.js';
