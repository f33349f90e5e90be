/**
 * The spans of one turn (OpenTelemetry GenAI names): `invoke_agent <provider>` for the turn,
 * `execute_tool <tool>` for each call the agent announces, under it, and
 * `permission <tool>` for each permission the turn decides, under its call (or the turn).
 * They name providers, tools, call ids and outcomes, never a prompt, a tool's input or its
 * output: a call the agent names only by a title (text a model wrote, often from the
 * input) gets spans that name no tool. The open `connector` calls are kept by local tool name, so the daemon can hang
 * the `tools/call` an agent makes without a trace context of its own under the call that
 * made it (see {@link TurnSpans.parentFor}), at the cost of a map lookup.
 */
import type { TraceContext } from '../telemetry/trace-context.js';
import type { Span, Tracer } from '../telemetry/types.js';
import type { ToolLabel } from './tool-proof.js';
import type {
  PermissionMode,
  PermissionOutcome,
  StopReason,
  ToolCallStatus,
  ToolIdentity,
} from './turn-types.js';

/** Who decided a permission: the `allow-connector` policy, the host, a timeout, or the turn's cancel or end. */
export type PermissionDecider = 'allow-connector' | 'host' | 'timeout' | 'cancelled' | 'turn-end';

/** Who a turn's spans are of. */
export interface TurnSpanSubject {
  /** The provider's name (`gen_ai.agent.name`). */
  readonly provider: string;
  /** The agent session's id (`gen_ai.conversation.id`). */
  readonly session: string;
  readonly permissions: PermissionMode;
}

/** One open tool-call span. */
interface OpenCall {
  readonly span: Span;
  readonly label: ToolLabel;
  status: ToolCallStatus | undefined;
}

/** The error code a failed tool call's span carries (`error.type`). */
export const TOOL_ERROR = 'tool_error';

/** Ends a permission span with its outcome and who decided it. */
export type PermissionSpanEnd = (outcome: PermissionOutcome, by: PermissionDecider) => void;

/** The spans of one running turn; see the module doc. */
export class TurnSpans {
  readonly #tracer: Tracer;
  readonly #turn: Span;
  readonly #permissions: PermissionMode;
  /** Open tool-call spans by call id. */
  readonly #calls = new Map<string, OpenCall>();
  /** Open proven `connector` calls, oldest first: by local tool name, and all of them. */
  readonly #connectorByTool = new Map<string, OpenCall[]>();
  readonly #connector: OpenCall[] = [];
  /** Calls named only by a title: their spans name no tool. */
  readonly #titled = new Set<string>();
  #error: string | undefined;
  #ended = false;

  constructor(tracer: Tracer, subject: TurnSpanSubject) {
    this.#tracer = tracer;
    this.#permissions = subject.permissions;
    this.#turn = tracer.start({
      name: `invoke_agent ${subject.provider}`,
      kind: 'internal',
      attributes: {
        'gen_ai.operation.name': 'invoke_agent',
        'gen_ai.agent.name': subject.provider,
        'gen_ai.conversation.id': subject.session,
        'tutti.permission.mode': subject.permissions,
      },
    });
  }

  /**
   * Starts the span of call `callId`, once, from the label its first identity fixed (the
   * caller sees to the once).
   */
  call(callId: string, label: ToolLabel, identity: ToolIdentity): void {
    if (this.#ended || this.#calls.has(callId)) return;
    const tool = 'label' in identity ? undefined : label.tool;
    if (tool === undefined) this.#titled.add(callId);
    const span = this.#tracer.start({
      name: tool === undefined ? 'execute_tool' : `execute_tool ${tool}`,
      kind: 'internal',
      ...(this.#turn.context && { parent: this.#turn.context }),
      attributes: {
        'gen_ai.operation.name': 'execute_tool',
        'gen_ai.tool.name': tool,
        'gen_ai.tool.call.id': callId,
        'tutti.tool.server': label.server || undefined,
      },
    });
    const open: OpenCall = { span, label, status: undefined };
    this.#calls.set(callId, open);
    if (!label.connector) return;
    this.#connector.push(open);
    const same = this.#connectorByTool.get(label.tool);
    if (same) same.push(open);
    else this.#connectorByTool.set(label.tool, [open]);
  }

  /** Call `callId` is at `status` now: a completed or failed call's span ends. */
  status(callId: string, status: ToolCallStatus): void {
    const open = this.#calls.get(callId);
    if (!open) return;
    open.status = status;
    if (status === 'failed') open.span.fail(TOOL_ERROR);
    if (status === 'completed' || status === 'failed') this.#endCall(callId, open);
  }

  /**
   * Starts the span of a permission the turn decides, under its call when the agent named
   * one that is open, else under the turn; the function it hands back ends it.
   */
  permission(
    label: ToolLabel,
    identity: ToolIdentity,
    callId: string | undefined,
  ): PermissionSpanEnd {
    if (this.#ended) return () => {};
    const parent =
      (callId === undefined ? undefined : this.#calls.get(callId)?.span.context) ??
      this.#turn.context;
    const titled = callId === undefined ? 'label' in identity : this.#titled.has(callId);
    const tool = titled ? undefined : label.tool;
    const span = this.#tracer.start({
      name: tool === undefined ? 'permission' : `permission ${tool}`,
      kind: 'internal',
      ...(parent && { parent }),
      attributes: {
        'gen_ai.tool.name': tool,
        'gen_ai.tool.call.id': callId,
        'tutti.tool.server': label.server || undefined,
        'tutti.permission.mode': this.#permissions,
      },
    });
    return (outcome, by) => {
      span.set({ 'tutti.permission.outcome': outcome, 'tutti.permission.decided_by': by });
      if (by === 'timeout') span.fail('TUTTI_ERR_TURN_PERMISSION_TIMEOUT');
      span.end();
    };
  }

  /** The turn reported an error: an `error` stop fails the turn's span with its code. */
  error(code: string): void {
    this.#error = code;
  }

  /** Ends every open span, the turn's last, with the stop reason. */
  end(stopReason: StopReason): void {
    if (this.#ended) return;
    this.#ended = true;
    for (const [callId, open] of this.#calls) this.#endCall(callId, open);
    this.#turn.set({ 'tutti.turn.stop_reason': stopReason });
    if (stopReason === 'error') this.#turn.fail(this.#error ?? 'error');
    this.#turn.end();
  }

  /**
   * Where a `connector` tools/call of local tool `tool` hangs: the newest open proven call
   * of that tool, else the newest open proven `connector` call, else the turn; undefined
   * once the turn ended or when nothing is recorded (the pass-through tracer).
   */
  parentFor(tool: string): TraceContext | undefined {
    if (this.#ended) return undefined;
    return (
      this.#connectorByTool.get(tool)?.at(-1)?.span.context ??
      this.#connector.at(-1)?.span.context ??
      this.#turn.context
    );
  }

  #endCall(callId: string, open: OpenCall): void {
    this.#calls.delete(callId);
    if (open.label.connector) {
      remove(this.#connector, open);
      const same = this.#connectorByTool.get(open.label.tool);
      if (same && remove(same, open) === 0) this.#connectorByTool.delete(open.label.tool);
    }
    if (open.status) open.span.set({ 'tutti.tool.status': open.status });
    open.span.end();
  }
}

/** Removes `item` from `list` (a few open calls at most); the length left. */
function remove<T>(list: T[], item: T): number {
  const at = list.lastIndexOf(item);
  if (at >= 0) list.splice(at, 1);
  return list.length;
}
