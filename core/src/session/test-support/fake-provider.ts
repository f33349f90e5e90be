/**
 * An in-process provider double for host tests: no agent process, it records what the
 * host gave it and offers the refresh methods a test switches on.
 */
import type { PreparedRuntime, ProviderCapabilities } from '../../contracts/index.js';
import type { AgentProvider, ProviderSession, ProviderSessionContext } from '../types.js';

/** What the fake saw and how it behaves. */
export interface FakeProviderControl {
  /** Runtimes the provider received, in order (prepare and reloads). */
  readonly runtimes: PreparedRuntime[];
  /** Params after the `sessionNew`/`sessionLoad`/`sessionResume` waterfall. */
  readonly sent: Record<string, unknown>[];
  /** Offer a native reload. */
  reload: boolean;
  /** Offer a reconnect before the next turn. */
  reconnect: boolean;
  /** What the agent declares; `undefined` simulates a failed probe. */
  probe: { httpMcp: boolean } | undefined;
  /** Make `newSession` throw this. */
  failWith?: Error;
  /** Ends the agent "on its own". */
  exit(reason: string): void;
  closed: number;
}

/** A provider named `name` and its control panel. */
export function createFakeProvider(
  name: string,
  capabilities: Partial<ProviderCapabilities> = { httpMcp: true },
): { provider: AgentProvider; control: FakeProviderControl } {
  const exitListeners: ((reason: string) => void)[] = [];
  const control: FakeProviderControl = {
    runtimes: [],
    sent: [],
    reload: false,
    reconnect: false,
    probe: { httpMcp: true },
    exit: (reason) => {
      for (const listener of exitListeners) listener(reason);
    },
    closed: 0,
  };
  const open = async (
    context: ProviderSessionContext,
    hook: 'sessionNew' | 'sessionLoad' | 'sessionResume',
    id: string,
  ): Promise<ProviderSession> => {
    if (control.failWith) throw control.failWith;
    const runtime = await context.prepare(control.probe);
    control.runtimes.push(runtime);
    control.sent.push(
      await context.hooks[hook].promise({ servers: runtime.mcpServers }, runtime, context.session),
    );
    const session: ProviderSession = {
      providerSessionId: id,
      connector: runtime.mcpServers.length > 0 ? 'bound' : 'plain',
      reload: async (rebind) => {
        if (!control.reload) return false;
        control.runtimes.push(await rebind());
        return true;
      },
      reconnectBeforeNextTurn: async () => control.reconnect,
      onExit: (listener) => exitListeners.push(listener),
      close: async () => {
        control.closed += 1;
      },
    };
    return session;
  };
  const provider: AgentProvider = {
    name,
    capabilities,
    newSession: (context) => open(context, 'sessionNew', `${name}-new`),
    loadSession: (context, id) => open(context, 'sessionLoad', id),
  };
  return { provider, control };
}
