/** A credential value that never shows itself in logs, JSON or `util.inspect`. */
import { inspect } from 'node:util';

const REDACTED = '[redacted]';

/**
 * Wraps a secret so that printing, logging or serializing it yields `[redacted]`;
 * only {@link Secret.reveal} returns the value.
 * @example headers.Authorization = `Bearer ${credential.secret.reveal()}`;
 */
export class Secret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  /** The secret value; hand it only to the upstream process or request that needs it. */
  reveal(): string {
    return this.#value;
  }

  /** True when both hold the same value. */
  equals(other: Secret): boolean {
    return this.#value === other.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}
