/** Agent session life cycle: the host, provider contract, hooks, preparation, agent stdio. */
export * from './agent-channel.js';
export * from './hooks.js';
export * from './host.js';
export * from './host-types.js';
export {
  DefaultPreparer,
  type DefaultPreparerOptions,
  type GuidanceFunction,
  type PlainReason,
  type PrepareRequest,
} from './preparer.js';
export * from './provider-contract.js';
export type { AgentSession } from './agent-session.js';
export { currentSessionId } from './session-setup.js';
export { type SessionFiles, sessionFiles } from './session-files.js';
export * from './session-types.js';
export * from './turn-types.js';
export * from './session-records.js';
export * from './tool-proof.js';
