/**
 * One turn of an ACP session, normalized: `session/prompt`, with the agent's
 * `session/update` notifications (message chunks, tool calls and their updates) as turn
 * events, its `session/request_permission` requests answered through the turn's
 * permission answer, and `session/cancel` when the turn is cancelled. What a call is comes
 * only from the fields the descriptor names (`permissions.identity`: where the agent puts
 * its own tool name), never from a call's title, kind or input, which a model wrote; the
 * turn labels a call once, at its first event, and a permission request for an announced
 * call is that call's. The daemon picks only once-options: never an "always" answer.
 */
import type { PromptBlock, StopReason, ToolCallStatus, ToolIdentity, TurnSink } from '@tutti/core';
import type { AcpConnection } from './acp-connection.js';
import type { ToolIdentityField } from './descriptors.js';

/** How long a prompt may run: turns end by the agent's answer, a cancel or a fault. */
const PROMPT_TIMEOUT_MS = 24 * 60 * 60 * 1000;

/** What an agent says of a tool call (a `tool_call` update or a permission request's `toolCall`). */
interface ToolCallInfo {
  toolCallId?: string;
  title?: string;
  [field: string]: unknown;
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

/** The value at a dotted path of `value`, when it is a non-empty string. */
function stringAt(value: unknown, path: string): string | undefined {
  let at: unknown = value;
  for (const key of path.split('.')) {
    if (!at || typeof at !== 'object') return undefined;
    at = (at as Record<string, unknown>)[key];
  }
  return typeof at === 'string' && at !== '' ? at : undefined;
}

/**
 * The identity of a call from the first of `fields` the agent filled; else its title as a
 * label, which proves nothing.
 */
export function identityOf(call: ToolCallInfo, fields: readonly ToolIdentityField[]): ToolIdentity {
  for (const field of fields) {
    if ('name' in field) {
      const name = stringAt(call, field.name);
      if (name) return { name };
    } else {
      const server = stringAt(call, field.server);
      const tool = stringAt(call, field.tool);
      if (server && tool) return { server, tool };
    }
  }
  return { label: typeof call.title === 'string' ? call.title : '' };
}

/** The option of a once-answer: allow once, or reject once (never an "always" option). */
export function onceOption(
  options: readonly PermissionOption[],
  outcome: 'allow' | 'deny',
): PermissionOption | undefined {
  return outcome === 'allow'
    ? options.find((option) => option.kind === 'allow_once')
    : options.find((option) => option.kind === 'reject_once');
}

/** The turns of one ACP session: one at a time; permission requests answered from here. */
export function acpTurns(
  connection: AcpConnection,
  sessionId: string,
  identity: readonly ToolIdentityField[] = [],
  bridges: readonly string[] = [],
) {
  let sink: TurnSink | undefined;
  /** Statuses of the running turn's calls, by id. */
  let calls = new Map<string, ToolCallStatus | undefined>();
  /** Calls first seen under a bridge tool: their permission request names what runs. */
  let bridged = new Set<string>();
  connection.handle('session/request_permission', async (params) => {
    const p = params as {
      sessionId?: string;
      toolCall?: ToolCallInfo;
      options?: PermissionOption[];
    };
    // Outside a turn (or another session's request) nobody can answer: cancelled.
    if (!sink || p.sessionId !== sessionId) return { outcome: { outcome: 'cancelled' } };
    const call = p.toolCall ?? {};
    const callId = typeof call.toolCallId === 'string' ? call.toolCallId : '';
    const outcome = await sink.permission({
      ...(callId && !bridged.has(callId) ? { callId } : {}),
      identity: identityOf(call, identity),
    });
    const option = onceOption(p.options ?? [], outcome);
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
    bridged = new Set();
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
        typeof update.toolCallId !== 'string' ||
        !update.toolCallId
      ) {
        return;
      }
      const known = calls.get(update.toolCallId);
      const status =
        statusOf(update.status) ?? (update.sessionUpdate === 'tool_call' ? 'pending' : undefined);
      if (status || !calls.has(update.toolCallId)) calls.set(update.toolCallId, status ?? known);
      if (!status || status === known) return;
      // The turn labels the call from its first event: a later update cannot relabel it.
      const named = identityOf(update, identity);
      if (!known && 'name' in named && bridges.includes(named.name)) bridged.add(update.toolCallId);
      turnSink.emit({ type: 'tool_call', callId: update.toolCallId, identity: named, status });
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
