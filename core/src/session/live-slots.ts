/**
 * The session limit: a session holds a slot while it holds an agent or a token (from its
 * start until it ends, needs a restart or is closed). Taking one past the limit is refused.
 */
import { TuttiError } from '../errors/index.js';

const DEFAULT_MAX_SESSIONS = 64;

export class LiveSlots {
  readonly #held = new Set<object>();
  readonly #max: number;

  constructor(max: number = DEFAULT_MAX_SESSIONS) {
    this.#max = max;
  }

  /** Takes a slot for `holder`; TUTTI_ERR_SESSION_LIMIT when none is free. */
  take(holder: object): void {
    if (this.#held.has(holder)) return;
    if (this.#held.size >= this.#max) {
      throw new TuttiError('TUTTI_ERR_SESSION_LIMIT', { max: this.#max });
    }
    this.#held.add(holder);
  }

  /** Frees the slot of `holder`, if it holds one. */
  free(holder: object): void {
    this.#held.delete(holder);
  }
}
