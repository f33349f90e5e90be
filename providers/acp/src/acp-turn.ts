/**
 * One turn of an ACP session, normalized: `session/prompt`, with the agent's
 * `session/update` notifications (message chunks, tool calls and their updates) as turn
 * events, its `session/request_permission` requests answered through the turn's
 * permission answer, and `session/cancel` when the turn is cancelled. Which MCP server and
 * tool a call is comes from what the agent says of it: `rawInput` `{server, tool}`, a tool
 * name in `_meta` (`toolName`, `claudeCode.toolName`), the title matched by the
 * descriptor's `toolTitles`, or a title such as `mcp__<server>__<tool>`; a permission
 * request for a call announced earlier in the turn is that call's.
 */
import {
  type PermissionAsk,
  type PromptBlock,
  type StopReason,
  type ToolCallStatus,
  type TurnSink,
  toolOf,
} from '@tutti/core';
import type { AcpConnection } from './acp-connection.js';

/** How long a prompt may run: turns end by the agent's answer, a cancel or a fault. */
const PROMPT_TIMEOUT_MS = 24 * 60 * 60 * 1000;

/** What an agent says of a tool call (a `tool_call` update or a permission request's `toolCall`). */
interface ToolCallInfo {
  toolCallId?: string;
  title?: string;
  rawInput?: unknown;
  _meta?: { toolName?: unknown; claudeCode?: { toolName?: unknown } };
}

interface Update extends ToolCallInfo {
  sessionUpdate?: string;
  content?: { type?: string; text?: string };
  status?: string;
}

interface PermissionOption {
  optionId: string;
  kind?: string;
}

const STOP_REASONS: Record<string, StopReason> = {
  end_turn: 'end_turn',
  cancelled: 'cancelled',
  max_tokens: 'max_tokens',
  max_turn_requests: 'max_tokens',
  refusal: 'refusal',
};

function statusOf(status: string | undefined): ToolCallStatus | undefined {
  return status === 'pending' ||
    status === 'in_progress' ||
    status === 'completed' ||
    status === 'failed'
    ? status
    : undefined;
}

/**
 * The MCP server and tool of a call, as far as what the agent says of it tells; `titles`
 * are the agent's own title forms (named groups `server` and `tool`).
 */
export function callOf(call: ToolCallInfo, titles: readonly RegExp[] = []): PermissionAsk {
  const raw = call.rawInput as { server?: unknown; tool?: unknown } | undefined;
  if (raw && typeof raw.server === 'string' && typeof raw.tool === 'string' && raw.tool) {
    return { server: raw.server, tool: raw.tool };
  }
  const names = [call._meta?.toolName, call._meta?.claudeCode?.toolName].filter(
    (name): name is string => typeof name === 'string' && name !== '',
  );
  for (const name of names) {
    const named = toolOf(name);
    if (named.server) return named;
  }
  const title = call.title ?? '';
  for (const pattern of titles) {
    const groups = pattern.exec(title)?.groups;
    if (groups?.server && groups.tool) return { server: groups.server, tool: groups.tool };
  }
  return toolOf(title || names[0] || '');
}

/** The turns of one ACP session: one at a time; permission requests answered from here. */
export function acpTurns(
  connection: AcpConnection,
  sessionId: string,
  toolTitles: readonly RegExp[] = [],
) {
  let sink: TurnSink | undefined;
  /** The calls of the running turn, by id. */
  let calls = new Map<string, { server: string; tool: string; status?: ToolCallStatus }>();
  connection.handle('session/request_permission', async (params) => {
    const p = params as {
      sessionId?: string;
      toolCall?: ToolCallInfo;
      options?: PermissionOption[];
    };
    const options = p.options ?? [];
    const pick = (prefix: string) =>
      options.find((option) => option.kind === `${prefix}_once`) ??
      options.find((option) => option.kind?.startsWith(prefix));
    // Outside a turn (or another session's request) nobody can answer: cancelled.
    if (!sink || p.sessionId !== sessionId) return { outcome: { outcome: 'cancelled' } };
    const announced = p.toolCall?.toolCallId ? calls.get(p.toolCall.toolCallId) : undefined;
    const named = callOf(p.toolCall ?? {}, toolTitles);
    const ask =
      announced?.server && !named.server
        ? { server: announced.server, tool: announced.tool }
        : named;
    const outcome = await sink.permission(ask);
    const option = pick(outcome === 'allow' ? 'allow' : 'reject');
    return option
      ? { outcome: { outcome: 'selected', optionId: option.optionId } }
      : { outcome: { outcome: 'cancelled' } };
  });

  return async function turn(
    prompt: readonly PromptBlock[],
    turnSink: TurnSink,
  ): Promise<StopReason> {
    sink = turnSink;
    calls = new Map();
    const unsubscribe = connection.onNotification(({ method, params }) => {
      const p = params as { sessionId?: string; update?: Update };
      if (method !== 'session/update' || p.sessionId !== sessionId || !p.update) return;
      const update = p.update;
      if (update.sessionUpdate === 'agent_message_chunk' && update.content?.type === 'text') {
        if (update.content.text) turnSink.emit({ type: 'text', text: update.content.text });
        return;
      }
      if (
        (update.sessionUpdate !== 'tool_call' && update.sessionUpdate !== 'tool_call_update') ||
        !update.toolCallId
      ) {
        return;
      }
      const known = calls.get(update.toolCallId);
      const named = callOf(update, toolTitles);
      // A later update may say more of the call than the first (its title, its input).
      const call = known?.server ? known : named.server || !known?.tool ? named : known;
      const status =
        statusOf(update.status) ?? (update.sessionUpdate === 'tool_call' ? 'pending' : undefined);
      calls.set(update.toolCallId, {
        server: call.server,
        tool: call.tool,
        ...(status ? { status } : known?.status ? { status: known.status } : {}),
      });
      if (!status || status === known?.status) return;
      turnSink.emit({
        type: 'tool_call',
        callId: update.toolCallId,
        server: call.server,
        tool: call.tool,
        status,
      });
      if (status === 'completed' || status === 'failed') {
        turnSink.emit({
          type: 'tool_result',
          callId: update.toolCallId,
          isError: status === 'failed',
        });
      }
    });
    const onAbort = () => connection.notify('session/cancel', { sessionId });
    turnSink.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const result = await connection.request<{ stopReason?: string } | null>(
        'session/prompt',
        { sessionId, prompt: prompt.map((block) => ({ ...block })) },
        PROMPT_TIMEOUT_MS,
      );
      return STOP_REASONS[result?.stopReason ?? ''] ?? 'end_turn';
    } finally {
      turnSink.signal.removeEventListener('abort', onAbort);
      unsubscribe();
      sink = undefined;
    }
  };
}
