/** How a `tools/call` ended, as the audit and the traces name it. */
import type { UpstreamCallResult } from '../contracts/index.js';
import { isTuttiError } from '../errors/index.js';
import type { AuditOutcome } from './types.js';

/**
 * The outcome of a call answered with `result` or failed with `error`; `aborted`: the
 * request was aborted (the agent cancelled or left, or the daemon stopped).
 */
export function outcomeOf(
  result: UpstreamCallResult | undefined,
  error: unknown,
  aborted: boolean,
): AuditOutcome {
  if (error === undefined) return result?.isError === true ? 'tool_error' : 'ok';
  if (!isTuttiError(error)) return aborted ? 'cancelled' : 'rpc_error';
  const code = error.code;
  if (aborted || code === 'TUTTI_ERR_UPSTREAM_CANCELLED') return 'cancelled';
  if (code === 'TUTTI_ERR_UPSTREAM_CALL_TIMEOUT') return 'timeout';
  if (code === 'TUTTI_ERR_UPSTREAM_UNAUTHORIZED' || code.startsWith('TUTTI_ERR_OAUTH_')) {
    return 'auth_required';
  }
  return 'rpc_error';
}
