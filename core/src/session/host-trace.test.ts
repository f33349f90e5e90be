import type { PreparedRuntime } from '@tutti/core';
import { closeHostWorlds, hostWorld } from '@tutti/test-kit/core/host-world';
import { recordingTracer } from '@tutti/test-kit/core/recording-tracer';
import { afterEach, describe, expect, it } from 'vitest';
import type { AgentSessionHost } from './host.js';
import type { StopReason, TurnSink } from './turn-types.js';

afterEach(closeHostWorlds);

/** A promise and its resolve. */
function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/**
 * Starts a session of a provider whose turn announces a proven `connector` call of
 * `notes_add` and waits at `gate`; resolves once the call is announced.
 */
async function sessionMidCall(host: AgentSessionHost) {
  const gate = deferred();
  const announced = deferred();
  const turn = async (_prompt: unknown, sink: TurnSink): Promise<StopReason> => {
    sink.emit({
      type: 'tool_call',
      callId: 'c1',
      identity: { name: 'mcp__connector__notes_add' },
      status: 'in_progress',
    });
    announced.resolve();
    await gate.promise;
    return 'end_turn';
  };
  host.registerProvider({
    name: 'scripted',
    flags: { httpMcp: true, listChanged: false },
    permissions: { modes: ['ask', 'allow-connector'], toolNames: ['mcp__{server}__{tool}'] },
    project: (runtime: PreparedRuntime) => ({ servers: runtime.mcpServers }),
    bindingsIn: (params: { servers: PreparedRuntime['mcpServers'] }) => params.servers,
    driver: () => ({ open: async () => ({ providerSessionId: 'p1', turn }) }),
  });
  const info = await host.createSession({ provider: 'scripted', workspaceId: 'ws', cwd: '/w' });
  const session = host.session(info.id);
  session.noteToolsListed({ version: 0, toolCount: 1, at: Date.now() }, [{ name: 'notes_add' }]);
  const { done } = await session.startTurn([{ type: 'text', text: 'go' }], () => {});
  await announced.promise;
  return { id: info.id, done, release: gate.resolve };
}

describe('AgentSessionHost.toolCallParent', () => {
  it("hangs a connector call of the session's token under its running turn's call span", async () => {
    const recorded = recordingTracer();
    const { host } = await hostWorld({ tracer: recorded.tracer });
    const { id, done, release } = await sessionMidCall(host);
    const call = recorded.named('execute_tool notes_add');
    expect(recorded.tree()).toEqual([
      ['invoke_agent scripted', undefined],
      ['execute_tool notes_add', 'invoke_agent scripted'],
    ]);
    expect(recorded.named('invoke_agent scripted').attributes['gen_ai.conversation.id']).toBe(id);
    expect(host.toolCallParent(id, 'notes_add')).toEqual(call.context);
    expect(host.toolCallParent(id, 'first_echo')).toEqual(call.context);
    expect(host.toolCallParent('another-session', 'notes_add')).toBeUndefined();
    release();
    await done;
    expect(host.toolCallParent(id, 'notes_add')).toBeUndefined();
    expect(recorded.spans.every((span) => span.ended)).toBe(true);
  });

  it('gives no parent when the host was given no tracer', async () => {
    const { host } = await hostWorld();
    const { id, done, release } = await sessionMidCall(host);
    expect(host.toolCallParent(id, 'notes_add')).toBeUndefined();
    release();
    await done;
  });
});
