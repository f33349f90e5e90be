/** A credential value that never shows itself in logs, JSON or `util.inspect`. */
import { inspect } from 'node:util';

const REDACTED = '[redacted]';

/** A credential value that prints, logs and serializes as `[redacted]`. */
export interface Secret {
  /** The secret value; hand it only to the upstream process or request that needs it. */
  reveal(): string;
  /** True when both hold the same value. */
  equals(other: Secret): boolean;
  toString(): string;
  toJSON(): string;
}

/**
 * Wraps a secret so that printing, logging or serializing it yields `[redacted]`;
 * only {@link Secret.reveal} returns the value.
 * @example headers.Authorization = `Bearer ${credential.secret.reveal()}`;
 */
export function createSecret(value: string): Secret {
  return Object.freeze({
    reveal: () => value,
    equals: (other: Secret) => other.reveal() === value,
    toString: () => REDACTED,
    toJSON: () => REDACTED,
    [inspect.custom]: () => REDACTED,
  });
}
