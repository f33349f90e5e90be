/**
 * Runs a provider's projection hooks and checks their result: after every tap, and once
 * more at the end, the provider's params must still carry each authoritative binding (read
 * back through the provider's `bindingsIn`). A tap that drops or changes it fails the
 * session with `TUTTI_ERR_PROVIDER_BINDING_DROPPED` naming the tap.
 */
import { isDeepStrictEqual } from 'node:util';
import type { MCPServerBinding, PreparedRuntime } from '../contracts/index.js';
import { TuttiError } from '../errors/index.js';
import { type ProjectionHook, projectionHook, type SessionHooks } from './hooks.js';
import type { AgentProvider } from './provider-contract.js';
import type { ProviderParams, SessionHookContext, SessionOperation } from './session-types.js';

const HOOK_NAMES = { new: 'sessionNew', load: 'sessionLoad', resume: 'sessionResume' } as const;
const guarded = new WeakSet<object>();

/** Installs the binding check on each tap of `provider`'s projection hooks (once). */
export function guardProjections(hooks: SessionHooks, provider: AgentProvider): void {
  for (const operation of ['new', 'load', 'resume'] as const) {
    const hook = projectionHook(hooks, provider.name, operation);
    if (guarded.has(hook)) continue;
    guarded.add(hook);
    hook.intercept({
      register: (tap) => {
        const fn = tap.fn as (...args: unknown[]) => unknown;
        const check = async (
          params: ProviderParams,
          runtime: PreparedRuntime,
          session: SessionHookContext,
        ) => {
          const result = (await fn(params, runtime, session)) as ProviderParams;
          checkBindings(provider, result, runtime.mcpServers, session, tap.name, operation);
          return result;
        };
        return { ...tap, type: 'promise', fn: check } as typeof tap;
      },
    });
  }
}

/** The final params of `operation` for a session, checked. */
export async function projectSession(
  hooks: SessionHooks,
  provider: AgentProvider,
  runtime: PreparedRuntime,
  context: SessionHookContext,
): Promise<ProviderParams> {
  const hook: ProjectionHook = projectionHook(hooks, provider.name, context.operation);
  if (hook.taps.length === 0) {
    throw new TuttiError('TUTTI_ERR_SESSION_NO_PROJECTION', {
      provider: provider.name,
      hook: HOOK_NAMES[context.operation],
    });
  }
  const params = await hook.promise({}, runtime, context);
  checkBindings(provider, params, runtime.mcpServers, context, 'the last tap', context.operation);
  return params;
}

function checkBindings(
  provider: AgentProvider,
  params: ProviderParams,
  expected: readonly MCPServerBinding[],
  session: SessionHookContext,
  tap: string,
  operation: SessionOperation,
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
        plugin: tap,
        hook: HOOK_NAMES[operation],
        provider: provider.name,
        session: session.agentSessionId,
      });
    }
  }
}
