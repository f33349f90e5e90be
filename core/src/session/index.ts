/** Agent session life cycle: hooks, preparation and the session host. */
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
export * from './types.js';
