/**
 * One turn of an app-server agent (Codex, Tutti Agent), normalized: `turn/start`, then the
 * item notifications (agent message deltas, MCP tool calls, command executions) as turn
 * events until `turn/completed`; the agent's approval requests (an MCP tool call's
 * elicitation, a command, a file change) go to the turn's permission answer, and an MCP
 * server's own elicitation (`mcpServer/elicitation/request` that is no approval) to the
 * turn's elicitation answer; a cancel is `turn/interrupt`. A reconnect the session owes happens before `turn/start` (engine).
 */
import type {
  ElicitationAnswer,
  ElicitationRequest,
  PromptBlock,
  StopReason,
  ToolIdentity,
  TurnSink,
} from '@tutti/core';
import { TuttiError } from '@tutti/core';
import type { AppServerEngine, TurnInputItem } from './app-server-engine.js';

interface Item {
  type?: string;
  id?: string;
  server?: string;
  tool?: string;
  status?: string;
  text?: string;
  error?: unknown;
  result?: { isError?: boolean } | null;
}

interface Notification {
  threadId?: string;
  turnId?: string;
  itemId?: string;
  delta?: string;
  item?: Item;
  turn?: { id?: string; status?: string; error?: { message?: string } | null };
}

/** The turn's input items from a prompt. */
function inputOf(prompt: readonly PromptBlock[]): TurnInputItem[] {
  return prompt.map((block) =>
    block.type === 'text'
      ? { type: 'text', text: block.text, text_elements: [] }
      : { type: 'image', url: `data:${block.mimeType};base64,${block.data}` },
  );
}

/** Stop reason of a completed turn's status. */
function stopOf(status: string | undefined, cancelled: boolean): StopReason {
  if (status === 'completed') return 'end_turn';
  if (status === 'interrupted' || cancelled) return 'cancelled';
  return 'error';
}

/**
 * `mcpServer/elicitation/request` params of Codex 0.171 (`McpServerElicitationRequestParams`
 * of `codex app-server generate-ts`): `serverName`, then `mode` `form` (`message`,
 * `requestedSchema`), `url` (`message`, `url`, `elicitationId`) or OpenAI's own form modes,
 * each with the MCP request's `_meta` as the server sent it.
 */
interface ServerElicitation {
  serverName?: unknown;
  mode?: unknown;
  message?: unknown;
  requestedSchema?: unknown;
  url?: unknown;
  elicitationId?: unknown;
  _meta?: { codex_approval_kind?: unknown } | null;
}

/**
 * The MCP server's question in the daemon's shape; OpenAI's own form modes
 * (`openai/form`) are not relayed (undefined: answered `cancel`). The turn checks the rest.
 */
function elicitationOf(p: ServerElicitation): ElicitationRequest | undefined {
  if (p.mode === 'form') {
    return {
      mode: 'form',
      message: p.message as string,
      requestedSchema: p.requestedSchema as ElicitationRequest['requestedSchema'],
    };
  }
  if (p.mode === 'url') {
    return {
      mode: 'url',
      message: p.message as string,
      url: p.url as string,
      ...(typeof p.elicitationId === 'string' && { elicitationId: p.elicitationId }),
    };
  }
  return undefined;
}

/** Codex's `McpServerElicitationRequestResponse` for an answer. */
function codexAnswer(answer: ElicitationAnswer) {
  return {
    action: answer.action,
    content: answer.action === 'accept' && answer.content ? answer.content : null,
    _meta: null,
  };
}

/** The turns of one engine's thread: one at a time, answers wired once. */
export function appServerTurns(engine: AppServerEngine, threadId: string, provider: string) {
  let sink: TurnSink | undefined;
  // Codex names the server and tool of an approval in fields of its own, never the model's text.
  const ask = async (identity: ToolIdentity, callId?: string) =>
    sink ? await sink.permission({ identity, ...(callId ? { callId } : {}) }) : 'deny';
  /**
   * MCP tool calls in progress, by item id, with their server and tool as Codex set them in
   * `item/started`, and whether their approval was asked yet. An elicitation's `_meta`
   * (`codex_approval_kind`, `tool_name`) is copied from whatever the MCP server sent, so it
   * proves nothing: only the first approval-kind request for an in-progress call of that
   * server that Codex itself would ask about is taken as the call's approval.
   */
  const inProgress = new Map<string, { server: string; tool: string; asked: boolean }>();
  engine.handle('mcpServer/elicitation/request', async (params) => {
    const p = params as ServerElicitation;
    if (p._meta?.codex_approval_kind !== 'mcp_tool_call') {
      // Not a tool call's approval: the MCP server's own question, for the host to answer.
      const request = elicitationOf(p);
      if (!sink || !request) return codexAnswer({ action: 'cancel' });
      const server = typeof p.serverName === 'string' ? p.serverName : '';
      return codexAnswer(await sink.elicit({ server, request }));
    }
    const approves = (server: string) =>
      server === 'connector' && sink?.permissions === 'allow-connector';
    const call = [...inProgress].find(
      ([, item]) => item.server === p.serverName && !item.asked && !approves(item.server),
    );
    // An approval-kind request for no call Codex would ask about: declined, as ever.
    if (!call) return { action: 'decline', content: null, _meta: null };
    const [callId, item] = call;
    item.asked = true;
    const outcome = await ask({ server: item.server, tool: item.tool }, callId);
    return outcome === 'allow'
      ? { action: 'accept', content: null, _meta: null }
      : { action: 'decline', content: null, _meta: null };
  });
  engine.handle('item/commandExecution/requestApproval', async (params) => ({
    decision:
      (await ask({ name: 'exec_command' }, (params as { itemId?: string }).itemId)) === 'allow'
        ? 'accept'
        : 'decline',
  }));
  engine.handle('item/fileChange/requestApproval', async (params) => ({
    decision:
      (await ask({ name: 'apply_patch' }, (params as { itemId?: string }).itemId)) === 'allow'
        ? 'accept'
        : 'decline',
  }));

  return async function turn(
    prompt: readonly PromptBlock[],
    turnSink: TurnSink,
  ): Promise<StopReason> {
    sink = turnSink;
    inProgress.clear();
    const deltas = new Set<string>();
    let turnId: string | undefined;
    let resolveEnd!: (reason: StopReason) => void;
    let rejectEnd!: (error: Error) => void;
    const ended = new Promise<StopReason>((resolve, reject) => {
      resolveEnd = resolve;
      rejectEnd = reject;
    });
    const stopFault = engine.onFault((error) => rejectEnd(error));
    let cancelled = false;
    const unsubscribe = engine.onNotification(({ method, params }) => {
      const n = params as Notification;
      if (n.threadId !== undefined && n.threadId !== engine.threadId(threadId)) return;
      if (turnId !== undefined && n.turnId !== undefined && n.turnId !== turnId) return;
      const item = n.item;
      if (method === 'item/agentMessage/delta' && n.delta) {
        if (n.itemId) deltas.add(n.itemId);
        turnSink.emit({ type: 'text', text: n.delta });
      } else if (method === 'item/started' && item?.type === 'mcpToolCall' && item.id) {
        inProgress.set(item.id, { server: item.server ?? '', tool: item.tool ?? '', asked: false });
        turnSink.emit({
          type: 'tool_call',
          callId: item.id,
          identity: { server: item.server ?? '', tool: item.tool ?? '' },
          status: 'in_progress',
        });
      } else if (method === 'item/started' && item?.type === 'commandExecution' && item.id) {
        turnSink.emit({
          type: 'tool_call',
          callId: item.id,
          identity: { name: 'exec_command' },
          status: 'in_progress',
        });
      } else if (method === 'item/completed' && item?.id) {
        inProgress.delete(item.id);
        if (item.type === 'agentMessage' && item.text && !deltas.has(item.id)) {
          turnSink.emit({ type: 'text', text: item.text });
        } else if (item.type === 'mcpToolCall' || item.type === 'commandExecution') {
          const failed =
            item.status === 'failed' || Boolean(item.error) || item.result?.isError === true;
          turnSink.emit({
            type: 'tool_call',
            callId: item.id,
            identity:
              item.type === 'mcpToolCall'
                ? { server: item.server ?? '', tool: item.tool ?? '' }
                : { name: 'exec_command' },
            status: failed ? 'failed' : 'completed',
          });
          turnSink.emit({ type: 'tool_result', callId: item.id, isError: failed });
        }
      } else if (method === 'turn/completed' && n.turn) {
        if (n.turn.status === 'failed') {
          rejectEnd(
            new TuttiError('TUTTI_ERR_TURN_FAILED', {
              provider,
              reason: n.turn.error?.message ?? 'the turn failed',
            }),
          );
        } else resolveEnd(stopOf(n.turn.status, cancelled));
      }
    });
    const onAbort = () => {
      cancelled = true;
      if (turnId) void engine.interruptTurn(threadId, turnId).catch(() => {});
    };
    turnSink.signal.addEventListener('abort', onAbort, { once: true });
    try {
      turnId = await engine.startTurn(threadId, inputOf(prompt));
      if (cancelled) onAbort();
      return await ended;
    } finally {
      turnSink.signal.removeEventListener('abort', onAbort);
      stopFault();
      unsubscribe();
      sink = undefined;
    }
  };
}
