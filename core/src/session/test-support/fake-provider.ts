/**
 * An in-process provider double for host tests: no agent process, it records what the
 * host gave it (the runtimes and the final params of each open) and offers the refresh
 * methods a test switches on. Its projection is a tap, as a real provider's is.
 */
import type { PreparedRuntime, ProviderFlags } from '../../contracts/index.js';
import type { PluginHost } from '../../plugins/plugin-contract.js';
import { PROJECTION_STAGE, providerHooks, REFRESH_STAGES } from '../hooks.js';
import type { AgentProvider, LiveSession, OpenRequest } from '../provider-contract.js';

/** What the fake saw and how it behaves. */
export interface FakeProviderControl {
  /** Runtimes the projection received, in order (opens and reprojections). */
  readonly runtimes: PreparedRuntime[];
  /** Final params of each open, after every projection tap and the binding check. */
  readonly sent: Record<string, unknown>[];
  /** Params each native reload received. */
  readonly reloads: Record<string, unknown>[];
  /** How each session was opened, in order (`new`, `load`). */
  readonly opened: ('new' | 'load')[];
  /** Offer a native reload. */
  reload: boolean;
  /** Offer a reconnect before the next turn. */
  reconnect: boolean;
  /** Make the open throw this. */
  failWith?: Error;
  /** Start `node -e <agentScript>` as the session's agent when set. */
  agentScript?: string;
  closed: number;
}

/** The fake's params: its projection of the binding. */
export interface FakeParams {
  servers: PreparedRuntime['mcpServers'];
  [key: string]: unknown;
}

/** A provider named `name`, installed on `host` with its projection and refresh taps. */
export function installFakeProvider(
  host: PluginHost,
  name: string,
  flags: ProviderFlags = { httpMcp: true, listChanged: false },
): FakeProviderControl {
  const control: FakeProviderControl = {
    runtimes: [],
    sent: [],
    reloads: [],
    opened: [],
    reload: false,
    reconnect: false,
    closed: 0,
  };
  const hooks = providerHooks(host.hooks, name);
  const project = async (_params: unknown, runtime: PreparedRuntime) => {
    control.runtimes.push(runtime);
    return { servers: runtime.mcpServers };
  };
  hooks.sessionNew.tapPromise({ name: 'Fake', stage: PROJECTION_STAGE }, project);
  hooks.sessionLoad.tapPromise({ name: 'Fake', stage: PROJECTION_STAGE }, project);
  hooks.toolsListChanged.tapPromise(
    { name: 'Fake', stage: REFRESH_STAGES.nativeReload },
    async (refresh) => {
      if (!control.reload || !refresh.handle.reload) return undefined;
      const { params } = await refresh.reproject('load');
      return (await refresh.handle.reload(params)) ? 'native-reload' : undefined;
    },
  );
  hooks.toolsListChanged.tapPromise(
    { name: 'Fake', stage: REFRESH_STAGES.reconnectBeforeTurn },
    async (refresh) =>
      (await refresh.handle.reconnectBeforeNextTurn?.()) ? 'reconnect-before-turn' : undefined,
  );
  const open =
    (operation: 'new' | 'load') => async (request: OpenRequest<FakeParams, undefined>) => {
      if (control.agentScript) {
        const agent = request.setup.spawn({
          command: process.execPath,
          args: ['-e', control.agentScript],
        });
        await agent.started;
      }
      if (control.failWith) throw control.failWith;
      control.opened.push(operation);
      control.sent.push(request.params as Record<string, unknown>);
      const session: LiveSession = {
        providerSessionId: request.providerSessionId ?? `${name}-new`,
        reload: async (params) => {
          control.reloads.push(params);
          return true;
        },
        reconnectBeforeNextTurn: async () => control.reconnect,
        // A turn that ends at once: enough for a session to count as having had one.
        turn: async () => 'end_turn',
        close: async () => {
          control.closed += 1;
        },
      };
      return session;
    };
  const provider: AgentProvider<string, undefined, FakeParams> = {
    name,
    flags,
    permissions: { modes: ['ask', 'allow-connector'], toolNames: ['mcp__{server}__{tool}'] },
    bindingsIn: (params) => params.servers ?? [],
    newSession: open('new'),
    loadSession: open('load'),
  };
  host.registerProvider(provider);
  return control;
}
