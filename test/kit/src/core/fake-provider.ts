/**
 * An in-process provider double for host tests: no agent process, it records what the
 * host gave it (the runtimes and the final params of each open) and offers the refresh
 * methods a test switches on.
 */
import type {
  AgentProvider,
  PluginHost,
  PreparedRuntime,
  PromptBlock,
  ProviderFlags,
  StopReason,
  TurnSink,
} from '@tutti/core';

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
  /** What a turn does (default: it ends at once). */
  turn?: (prompt: readonly PromptBlock[], sink: TurnSink) => Promise<StopReason>;
  /** Start `node -e <agentScript>` as the session's agent when set. */
  agentScript?: string;
  closed: number;
}

/** The fake's params: its projection of the binding. */
export interface FakeParams {
  servers: PreparedRuntime['mcpServers'];
  [key: string]: unknown;
}

/** A provider named `name`, registered on `host`. */
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
  const provider: AgentProvider<string, FakeParams> = {
    name,
    flags,
    permissions: { modes: ['ask', 'allow-connector'], toolNames: ['mcp__{server}__{tool}'] },
    reopens: ['load'],
    project: (runtime) => {
      control.runtimes.push(runtime);
      return { servers: runtime.mcpServers };
    },
    bindingsIn: (params) => params.servers ?? [],
    driver: (setup) => ({
      async open(request) {
        if (control.agentScript) {
          const agent = setup.spawn({
            command: process.execPath,
            args: ['-e', control.agentScript],
          });
          await agent.started;
        }
        if (control.failWith) throw control.failWith;
        control.opened.push(request.operation as 'new' | 'load');
        control.sent.push(request.params);
        return {
          providerSessionId: request.providerSessionId ?? `${name}-new`,
          async reload(reproject) {
            if (!control.reload) return false;
            const { params } = await reproject('load');
            control.reloads.push(params);
            return true;
          },
          reconnectBeforeNextTurn: async () => control.reconnect,
          // By default a turn that ends at once: enough for a session to count as having had one.
          turn: async (prompt, sink) => (control.turn ? control.turn(prompt, sink) : 'end_turn'),
          close: async () => {
            control.closed += 1;
          },
        };
      },
      hosted: () => ({
        async reload(reproject) {
          if (!control.reload) return false;
          await reproject('load');
          return true;
        },
        reconnectBeforeNextTurn: async () => control.reconnect,
      }),
    }),
  };
  host.registerProvider(provider);
  return control;
}
