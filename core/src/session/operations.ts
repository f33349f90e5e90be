/**
 * The ways a session is opened, written once: for each operation, the projection hook
 * third-party plugins tap, the ACP method that carries it on the wire, and whether a
 * provider can open a session that way.
 */
import type { SessionOperation } from './session-types.js';

/** Each operation's hook and ACP wire method. */
export const SESSION_OPERATIONS = Object.freeze({
  new: Object.freeze({ hook: 'sessionNew', wire: 'session/new' }),
  load: Object.freeze({ hook: 'sessionLoad', wire: 'session/load' }),
  resume: Object.freeze({ hook: 'sessionResume', wire: 'session/resume' }),
} as const);

/** The operations that open an earlier session by the agent's own id. */
export type Reopening = Exclude<SessionOperation, 'new'>;

/**
 * Whether `provider` opens sessions through `operation`: every provider opens new ones;
 * `load` and `resume` are the ones it lists in `reopens`.
 */
export function supports(
  provider: { readonly reopens?: readonly Reopening[] | undefined },
  operation: SessionOperation,
): boolean {
  return operation === 'new' || (provider.reopens?.includes(operation) ?? false);
}
