/**
 * A session host whose `connector` binding points at the kit's eliciting MCP server instead
 * of a daemon, for provider tests of elicitation with a real agent (test support): the
 * scripted model calls `confirm_delete`, the server asks "Delete 40 files?", and the test
 * sees whether the agent relays the question to its turn and the answer back. A board of
 * relayed elicitations stands in for the `connector` server's. `close()` ends it all.
 */
import {
  type AgentProvider,
  AgentSessionHost,
  type PermissionMode,
  type RelayedElicitation,
} from '@tutti/core';
import { createTokenService } from '@tutti/core/internal';
import { type AgentHomes, createAgentHomes } from './agent-env.js';
import { createFakeConnector } from './core/fake-connector.js';
import { CONFIRM_DELETE, startElicitingMcpServer } from './eliciting-mcp-server.js';
import { type ScriptedModel, startScriptedModel } from './scripted-model.js';

/** One event of a turn, as the host streams it. */
export interface HostTurnEvent {
  readonly type: string;
  readonly [key: string]: unknown;
}

/** What a host turn saw and how it was answered. */
export interface AnsweredTurn {
  readonly events: HostTurnEvent[];
  /** The text the agent answered with, joined. */
  readonly text: string;
}

/** An answer to each elicitation event: the route's body. */
export type ElicitationReply = {
  readonly action: 'accept' | 'decline' | 'cancel';
  readonly content?: Record<string, string | number | boolean | string[]>;
};

/** Starts the model, the eliciting server and a host with the provider `make` gives. */
export async function startElicitingHost(
  make: (homes: AgentHomes, model: ScriptedModel) => Promise<AgentProvider> | AgentProvider,
) {
  const homes = await createAgentHomes();
  const model = await startScriptedModel();
  const server = await startElicitingMcpServer();
  const board: RelayedElicitation[] = [];
  const host = new AgentSessionHost({
    connector: createFakeConnector({ url: server.url, binDir: `${homes.agentEnv.root}/bin` }),
    tokens: createTokenService(),
    sessionsDir: homes.tmp,
    elicitations: {
      pendingFor: (id) => board.filter((entry) => entry.agentSessionId === id),
    },
  });
  host.registerProvider(await make(homes, model));

  /** Starts a session of the provider with `env` over the test's HOME and XDG folders. */
  const start = async (
    provider: string,
    env: Record<string, string>,
    permissions: PermissionMode,
  ) => {
    const info = await host.createSession({
      provider,
      workspaceId: `ws-elicit-${provider}`,
      cwd: homes.agentEnv.cwd,
      env: { ...homes.env, ...env },
      permissions,
    });
    // What the `connector` server would hold while it waits on the agent's answer.
    board.push({
      agentSessionId: info.id,
      connector: 'files',
      tool: 'files_confirm_delete',
      request: CONFIRM_DELETE as unknown as RelayedElicitation['request'],
      since: Date.now(),
    });
    return info;
  };

  /** Runs a turn, allowing every permission and answering every elicitation with `reply`. */
  const turn = async (id: string, prompt: string, reply: ElicitationReply) => {
    const events: HostTurnEvent[] = [];
    const session = host.session(id);
    const { done } = await session.startTurn([{ type: 'text', text: prompt }], (event) => {
      events.push(event as unknown as HostTurnEvent);
      if (event.type === 'permission') session.answerPermission(event.requestId, 'allow');
      if (event.type === 'elicitation') session.answerElicitation(event.requestId, reply);
    });
    await done;
    const text = events
      .filter((event) => event.type === 'text')
      .map((event) => String(event.text))
      .join('');
    return { events, text } satisfies AnsweredTurn;
  };

  return {
    homes,
    model,
    server,
    host,
    start,
    turn,
    async close() {
      await host.close();
      await server.close();
      await model.close();
      await homes.agentEnv.dispose();
    },
  };
}
