/**
 * A session's final params: its provider's `project()`, then the third-party taps of the
 * provider's hook for the operation. The binding is checked at each step, in one place:
 * the projection and every tap's result must still carry each authoritative binding (read
 * back through the provider's `bindingsIn`), else the session fails with
 * `TUTTI_ERR_PROVIDER_BINDING_DROPPED` naming who dropped it.
 */
import { isDeepStrictEqual } from 'node:util';
import type { MCPServerBinding, PreparedRuntime } from '../contracts/index.js';
import { TuttiError } from '../errors/index.js';
import { projectionHook, type SessionHooks } from './hooks.js';
import { SESSION_OPERATIONS } from './operations.js';
import type { AgentProvider } from './provider-contract.js';
import type { ProviderParams, SessionHookContext, SessionOperation } from './session-types.js';

/** Who made the params being checked when it is the provider itself. */
const OWN_PROJECTION = 'project()';

/**
 * Checks each tap of the projection hooks of the provider named `name` (its current one,
 * from `provider()`): the tap's result must keep the binding.
 */
export function guardProjections(
  hooks: SessionHooks,
  name: string,
  provider: () => AgentProvider | undefined,
): void {
  for (const operation of Object.keys(SESSION_OPERATIONS) as SessionOperation[]) {
    projectionHook(hooks, name, operation).intercept({
      register: (tap) => {
        const fn = tap.fn as (...args: unknown[]) => unknown;
        const check = async (
          params: ProviderParams,
          runtime: PreparedRuntime,
          session: SessionHookContext,
        ) => {
          const result = (await fn(params, runtime, session)) as ProviderParams;
          const current = provider();
          if (current) checkBindings(current, result, runtime.mcpServers, session, tap.name);
          return result;
        };
        return { ...tap, type: 'promise', fn: check } as typeof tap;
      },
    });
  }
}

/** The final params of `context.operation` for a session, checked. */
export async function projectSession(
  hooks: SessionHooks,
  provider: AgentProvider,
  runtime: PreparedRuntime,
  context: SessionHookContext,
): Promise<ProviderParams> {
  const own = (await provider.project(runtime, context)) as ProviderParams;
  checkBindings(provider, own, runtime.mcpServers, context, OWN_PROJECTION);
  return projectionHook(hooks, provider.name, context.operation).promise(own, runtime, context);
}

function checkBindings(
  provider: AgentProvider,
  params: ProviderParams,
  expected: readonly MCPServerBinding[],
  session: SessionHookContext,
  by: string,
): void {
  if (expected.length === 0) return;
  let found: readonly MCPServerBinding[];
  try {
    found = provider.bindingsIn(params as never);
  } catch {
    found = [];
  }
  for (const binding of expected) {
    if (!found.some((candidate) => isDeepStrictEqual(candidate, binding))) {
      throw new TuttiError('TUTTI_ERR_PROVIDER_BINDING_DROPPED', {
        plugin: by,
        hook: SESSION_OPERATIONS[session.operation].hook,
        provider: provider.name,
        session: session.agentSessionId,
      });
    }
  }
}
