/** The turns of one session: one at a time, and whether it has had one. */
import { TuttiError } from '../errors/index.js';
import type { ElicitationAnswer } from '../contracts/elicitation.js';
import type { TraceContext } from '../telemetry/trace-context.js';
import type { WaitingElicitation } from './turn-elicitations.js';
import type { TurnRunner } from './turn-runner.js';
import type { PermissionOutcome } from './turn-types.js';

export class SessionTurns {
  #turn: TurnRunner | undefined;
  #starting = false;
  #had = false;

  /** Whether the session has had a turn (it then comes back with its history, not afresh). */
  get had(): boolean {
    return this.#had;
  }

  /**
   * Holds the turn slot while `before` runs (what the session owes first, e.g. a refresh);
   * TUTTI_ERR_TURN_BUSY when a turn runs or waits to start.
   */
  async reserve(session: string, before: () => Promise<void>): Promise<void> {
    if (this.#turn?.running || this.#starting) {
      throw new TuttiError('TUTTI_ERR_TURN_BUSY', { session });
    }
    this.#starting = true;
    try {
      await before();
    } finally {
      this.#starting = false;
    }
  }

  /** `turn` is the session's turn now; true when it is the session's first. */
  started(turn: TurnRunner): boolean {
    this.#turn = turn;
    const first = !this.#had;
    this.#had = true;
    return first;
  }

  /** A new start of the session: it has had a turn before when it comes back with its history. */
  reset(had: boolean): void {
    this.#turn?.cancel();
    this.#turn = undefined;
    this.#had = had;
  }

  /** Where a `connector` tools/call of local tool `tool` hangs in the running turn's trace. */
  toolCallParent(tool: string): TraceContext | undefined {
    return this.#turn?.running ? this.#turn.toolCallParent(tool) : undefined;
  }

  /** Cancels the running turn; false when none runs. */
  cancel(): boolean {
    return this.#turn?.cancel() ?? false;
  }

  /** Answers a permission request of the running turn; false when it asked none of that id. */
  answer(requestId: string, outcome: PermissionOutcome): boolean {
    return this.#turn?.answer(requestId, outcome) ?? false;
  }

  /** Answers an elicitation of the running turn; false when none of that id waits. */
  answerElicitation(requestId: string, answer: ElicitationAnswer): boolean {
    return this.#turn?.answerElicitation(requestId, answer) ?? false;
  }

  /** The running turn's elicitations waiting for the host. */
  waitingElicitations(): WaitingElicitation[] {
    return this.#turn?.running ? this.#turn.waitingElicitations() : [];
  }
}
