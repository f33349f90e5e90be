/**
 * One turn of an ACP session, normalized: `session/prompt`, with the agent's
 * `session/update` notifications (message chunks, tool calls and their updates) as turn
 * events, its `session/request_permission` requests answered through the turn's
 * permission answer, and `session/cancel` when the turn is cancelled.
 */
import {
  type PromptBlock,
  type StopReason,
  type ToolCallStatus,
  type TurnSink,
  toolOf,
} from '@tutti/core';
import type { AcpConnection } from './acp-connection.js';

/** How long a prompt may run: turns end by the agent's answer, a cancel or a fault. */
const PROMPT_TIMEOUT_MS = 24 * 60 * 60 * 1000;

interface Update {
  sessionUpdate?: string;
  content?: { type?: string; text?: string };
  toolCallId?: string;
  title?: string;
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

/** The turns of one ACP session: one at a time; permission requests answered from here. */
export function acpTurns(connection: AcpConnection, sessionId: string) {
  let sink: TurnSink | undefined;
  connection.handle('session/request_permission', async (params) => {
    const p = params as {
      sessionId?: string;
      toolCall?: { title?: string };
      options?: PermissionOption[];
    };
    const options = p.options ?? [];
    const pick = (prefix: string) =>
      options.find((option) => option.kind === `${prefix}_once`) ??
      options.find((option) => option.kind?.startsWith(prefix));
    // Outside a turn (or another session's request) nobody can answer: cancelled.
    if (!sink || p.sessionId !== sessionId) return { outcome: { outcome: 'cancelled' } };
    const outcome = await sink.permission(toolOf(p.toolCall?.title ?? ''));
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
    const calls = new Map<string, { server: string; tool: string; status?: ToolCallStatus }>();
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
      const call = {
        ...(known ?? toolOf(update.title ?? '')),
        ...(update.title && !known ? toolOf(update.title) : {}),
      };
      const status =
        statusOf(update.status) ?? (update.sessionUpdate === 'tool_call' ? 'pending' : undefined);
      calls.set(update.toolCallId, { ...call, ...(status ? { status } : {}) });
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
