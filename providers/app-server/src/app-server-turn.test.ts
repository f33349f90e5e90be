/**
 * How an app-server turn answers `mcpServer/elicitation/request`, on an engine double that
 * sends the requests Codex 0.171 sends (their shapes as `codex app-server generate-ts`
 * gives them and as measured): an MCP server's own question goes to the turn's elicitation
 * answer and back in Codex's response shape; Codex's approval of a tool call goes to the
 * permission answer as before; anything else is not relayed.
 */
import type {
  ElicitationAnswer,
  ElicitationAsk,
  PermissionAsk,
  PermissionOutcome,
  TurnSink,
} from '@tutti/core';
import { describe, expect, it } from 'vitest';
import type { AppServerEngine } from './app-server-engine.js';
import { appServerTurns } from './app-server-turn.js';

type Handler = (params: unknown) => Promise<unknown>;

const FORM = {
  threadId: 't1',
  turnId: 'turn-1',
  serverName: 'connector',
  environmentId: null,
  mode: 'form',
  _meta: null,
  message: 'Delete 40 files?',
  requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } } },
};

/**
 * Runs one turn during which the agent sends `requests` (in order) and records what the
 * turn answered each; the sink answers elicitations with `answer` and permissions `allow`.
 */
async function turnAnswering(
  requests: unknown[],
  answer: ElicitationAnswer,
  { started = [] as { id: string; server: string; tool: string }[] } = {},
) {
  const handlers = new Map<string, Handler>();
  const listeners = new Set<(n: { method: string; params: unknown }) => void>();
  const replies: unknown[] = [];
  const engine = {
    handle: (method: string, handler: Handler) => handlers.set(method, handler),
    onNotification: (listener: (n: { method: string; params: unknown }) => void) => {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onFault: () => () => {},
    threadId: (id: string) => id,
    interruptTurn: async () => {},
    startTurn: async () => {
      queueMicrotask(async () => {
        const notify = (method: string, params: unknown) => {
          for (const listener of [...listeners]) listener({ method, params });
        };
        for (const item of started) {
          notify('item/started', { threadId: 't1', item: { type: 'mcpToolCall', ...item } });
        }
        const handler = handlers.get('mcpServer/elicitation/request')!;
        for (const request of requests) replies.push(await handler(request));
        notify('turn/completed', { threadId: 't1', turn: { id: 'turn-1', status: 'completed' } });
      });
      return 'turn-1';
    },
  } as unknown as AppServerEngine;
  const elicited: ElicitationAsk[] = [];
  const permissions: PermissionAsk[] = [];
  const sink: TurnSink = {
    emit: () => {},
    permission: async (ask): Promise<PermissionOutcome> => {
      permissions.push(ask);
      return 'allow';
    },
    elicit: async (ask) => {
      elicited.push(ask);
      return answer;
    },
    signal: new AbortController().signal,
    permissions: 'ask',
  };
  const turn = appServerTurns(engine, 't1', 'codex');
  expect(await turn([{ type: 'text', text: 'go' }], sink)).toBe('end_turn');
  return { replies, elicited, permissions };
}

describe('app-server turn elicitations', () => {
  it("relays an MCP server's form to the turn and answers Codex in its response shape", async () => {
    const { replies, elicited } = await turnAnswering([FORM], {
      action: 'accept',
      content: { confirm: true },
    });
    expect(elicited).toEqual([
      {
        server: 'connector',
        request: {
          mode: 'form',
          message: 'Delete 40 files?',
          requestedSchema: FORM.requestedSchema,
        },
      },
    ]);
    expect(replies).toEqual([{ action: 'accept', content: { confirm: true }, _meta: null }]);
  });

  it('relays a URL-mode question with its URL and id, and answers a decline with no content', async () => {
    const url = {
      ...FORM,
      mode: 'url',
      requestedSchema: undefined,
      url: 'https://example.test/consent',
      elicitationId: 'e-7',
    };
    const { replies, elicited } = await turnAnswering([url], { action: 'decline' });
    expect(elicited[0]?.request).toEqual({
      mode: 'url',
      message: 'Delete 40 files?',
      url: 'https://example.test/consent',
      elicitationId: 'e-7',
    });
    expect(replies).toEqual([{ action: 'decline', content: null, _meta: null }]);
  });

  it("answers OpenAI's own form modes with cancel, never asking the host", async () => {
    const { replies, elicited } = await turnAnswering(
      [
        { ...FORM, mode: 'openai/form' },
        { ...FORM, mode: 'openaiForm' },
      ],
      { action: 'accept', content: { confirm: true } },
    );
    expect(elicited).toEqual([]);
    expect(replies).toEqual([
      { action: 'cancel', content: null, _meta: null },
      { action: 'cancel', content: null, _meta: null },
    ]);
  });

  it("keeps Codex's approval of an in-progress call a permission, and declines one for no call", async () => {
    const approval = {
      ...FORM,
      message: 'Allow the connector MCP server to run tool "notes_add"?',
      _meta: { codex_approval_kind: 'mcp_tool_call', tool_name: 'notes_add' },
      requestedSchema: { type: 'object', properties: {} },
    };
    const { replies, elicited, permissions } = await turnAnswering(
      [approval, approval],
      { action: 'accept' },
      { started: [{ id: 'call-1', server: 'connector', tool: 'notes_add' }] },
    );
    expect(elicited).toEqual([]);
    expect(permissions).toEqual([
      { identity: { server: 'connector', tool: 'notes_add' }, callId: 'call-1' },
    ]);
    // The first approves the call; the second names no call Codex would still ask about.
    expect(replies).toEqual([
      { action: 'accept', content: null, _meta: null },
      { action: 'decline', content: null, _meta: null },
    ]);
  });
});
