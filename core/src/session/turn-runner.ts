/**
 * One running turn of a daemon-driven session: it runs the provider's `turn`, streams its
 * events to the caller (a `start` naming the permission mode first, exactly one `end`
 * last), labels each tool call once from the agent's own identity of it (`tool-proof.ts`),
 * and holds the turn's pending permission requests: in `allow-connector` mode a call
 * proven to be a `connector` tool is allowed here, every other one is asked. A permission
 * nobody answers is denied after the permission timeout, which also cancels the turn, so a
 * turn never waits forever. An MCP server's question the agent relays goes to the host as
 * an `elicitation` event (`turn-elicitations.ts`); unanswered, it is cancelled after the
 * same timeout, and the turn's end cancels those still waiting. Its spans (the turn's, each call's, each permission's) are
 * made in `turn-spans.ts` and all end with the turn.
 */
import { randomUUID } from 'node:crypto';
import type { ElicitationAnswer, RelayedElicitation } from '../contracts/elicitation.js';
import { isTuttiError, TuttiError } from '../errors/index.js';
import type { TraceContext } from '../telemetry/trace-context.js';
import type { Tracer } from '../telemetry/types.js';
import type { LiveSession } from './provider-contract.js';
import { labelOf, type ToolLabel, type ToolProofContext } from './tool-proof.js';
import { TurnElicitations, type WaitingElicitation } from './turn-elicitations.js';
import { type PermissionDecider, TurnSpans } from './turn-spans.js';
import type {
  ElicitationAsk,
  PermissionAsk,
  PermissionMode,
  PermissionOutcome,
  PromptBlock,
  ProviderTurnEvent,
  StopReason,
  TurnEvent,
} from './turn-types.js';

/** The turn's options. */
export interface TurnOptions {
  readonly permissions: PermissionMode;
  readonly permissionTimeoutMs: number;
  /** Names the provider in errors and spans. */
  readonly provider: string;
  /** The agent session's id, for the turn's span. */
  readonly session: string;
  /** Makes the turn's spans (the pass-through tracer records none). */
  readonly tracer: Tracer;
  /** What proves a call is a `connector` tool: the agent's naming forms, the tools served. */
  readonly proof: ToolProofContext;
  /**
   * The elicitations the `connector` server relayed to this session's agent and waits on
   * (the daemon's board): what proves an elicitation's connector and tool. None by default.
   */
  readonly relayedElicitations?: () => readonly RelayedElicitation[];
}

/** A running turn. */
export class TurnRunner {
  readonly #abort = new AbortController();
  readonly #pending = new Map<
    string,
    { settle(outcome: PermissionOutcome, by: PermissionDecider): void; timer: NodeJS.Timeout }
  >();
  /** Each announced call's label, fixed by the first event of its id. */
  readonly #labels = new Map<string, ToolLabel>();
  readonly #spans: TurnSpans;
  readonly #elicitations: TurnElicitations;
  #ended = false;
  /** Resolves once the `end` event went out. */
  readonly done: Promise<void>;

  constructor(
    handle: LiveSession,
    prompt: readonly PromptBlock[],
    listener: (event: TurnEvent) => void,
    options: TurnOptions,
  ) {
    this.#spans = new TurnSpans(options.tracer, options);
    const emit = (event: TurnEvent) => {
      if (this.#ended) return;
      if (event.type === 'end') {
        this.#ended = true;
        this.#spans.end(event.stopReason);
      } else if (event.type === 'error') this.#spans.error(event.code);
      listener(event);
    };
    this.#elicitations = new TurnElicitations({
      timeoutMs: options.permissionTimeoutMs,
      provider: options.provider,
      relayed: options.relayedElicitations ?? (() => []),
      emit,
    });
    const sink = {
      emit: (event: ProviderTurnEvent) => {
        if (event.type !== 'tool_call') return emit(event);
        const label = this.#label(event.callId, event.identity, options);
        this.#spans.status(event.callId, event.status);
        emit({
          type: 'tool_call',
          callId: event.callId,
          server: label.server,
          tool: label.tool,
          status: event.status,
        });
      },
      permission: (ask: PermissionAsk) => this.#permission(ask, emit, options),
      elicit: (ask: ElicitationAsk) =>
        this.#ended || this.#abort.signal.aborted
          ? Promise.resolve<ElicitationAnswer>({ action: 'cancel' })
          : this.#elicitations.ask(ask),
      signal: this.#abort.signal,
      permissions: options.permissions,
    };
    emit({ type: 'start', permissions: options.permissions });
    this.done = (async () => {
      let stopReason: StopReason;
      try {
        stopReason = await handle.turn!(prompt, sink);
      } catch (error) {
        const failed = isTuttiError(error)
          ? error
          : new TuttiError('TUTTI_ERR_TURN_FAILED', {
              provider: options.provider,
              reason: error instanceof Error ? error.message : String(error),
            });
        emit({ type: 'error', code: failed.code, message: failed.message });
        stopReason = 'error';
      }
      this.#settlePending('turn-end');
      emit({ type: 'end', stopReason });
    })();
  }

  /** True until the turn ended. */
  get running(): boolean {
    return !this.#ended;
  }

  /** Asks the agent to stop the turn; false when it already ended. */
  cancel(): boolean {
    if (this.#ended) return false;
    this.#abort.abort();
    this.#settlePending('cancelled');
    return true;
  }

  /** Answers a pending permission request; false when there is none with that id. */
  answer(requestId: string, outcome: PermissionOutcome): boolean {
    const pending = this.#pending.get(requestId);
    if (!pending) return false;
    this.#pending.delete(requestId);
    clearTimeout(pending.timer);
    pending.settle(outcome, 'host');
    return true;
  }

  /** Hands the host's answer to a waiting elicitation; false when none has that id. */
  answerElicitation(requestId: string, answer: ElicitationAnswer): boolean {
    return this.#elicitations.answer(requestId, answer);
  }

  /** The turn's elicitations waiting for the host, oldest first. */
  waitingElicitations(): WaitingElicitation[] {
    return this.#ended ? [] : this.#elicitations.waiting();
  }

  /**
   * Where a `connector` tools/call of local tool `tool` made during this turn hangs (see
   * {@link TurnSpans.parentFor}); undefined once the turn ended.
   */
  toolCallParent(tool: string): TraceContext | undefined {
    return this.#spans.parentFor(tool);
  }

  async #permission(
    ask: PermissionAsk,
    emit: (event: TurnEvent) => void,
    options: TurnOptions,
  ): Promise<PermissionOutcome> {
    const label =
      ask.callId === undefined
        ? labelOf(ask.identity, options.proof)
        : this.#label(ask.callId, ask.identity, options);
    const decided = this.#spans.permission(label, ask.identity, ask.callId);
    if (options.permissions === 'allow-connector' && label.connector) {
      decided('allow', 'allow-connector');
      return 'allow';
    }
    if (this.#ended || this.#abort.signal.aborted) {
      decided('deny', 'cancelled');
      return 'deny';
    }
    const requestId = randomUUID();
    return new Promise<PermissionOutcome>((resolve) => {
      const settle = (outcome: PermissionOutcome, by: PermissionDecider) => {
        decided(outcome, by);
        resolve(outcome);
      };
      const timer = setTimeout(() => {
        if (!this.#pending.delete(requestId)) return;
        settle('deny', 'timeout');
        const error = new TuttiError('TUTTI_ERR_TURN_PERMISSION_TIMEOUT', {
          provider: options.provider,
          tool: label.server ? `${label.server}/${label.tool}` : label.tool,
          ms: options.permissionTimeoutMs,
        });
        emit({ type: 'error', code: error.code, message: error.message });
        this.cancel();
      }, options.permissionTimeoutMs);
      timer.unref();
      this.#pending.set(requestId, { settle, timer });
      emit({
        type: 'permission',
        requestId,
        server: label.server,
        tool: label.tool,
        options: ['allow', 'deny'],
      });
    });
  }

  /**
   * The label of call `callId`: the first identity seen for it decides, once, and starts
   * the call's span (an ask that names a call announces it too).
   */
  #label(callId: string, identity: PermissionAsk['identity'], options: TurnOptions): ToolLabel {
    let label = this.#labels.get(callId);
    if (!label) {
      label = labelOf(identity, options.proof);
      this.#labels.set(callId, label);
      this.#spans.call(callId, label, identity);
    }
    return label;
  }

  /**
   * Denies every pending permission request and cancels every waiting elicitation: the
   * turn was cancelled or ended.
   */
  #settlePending(by: 'cancelled' | 'turn-end'): void {
    this.#elicitations.close();
    for (const [id, pending] of this.#pending) {
      clearTimeout(pending.timer);
      this.#pending.delete(id);
      pending.settle('deny', by);
    }
  }
}
