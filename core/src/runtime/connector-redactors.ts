/**
 * The secrets each connector's upstreams were given in this daemon's life (its credential,
 * its credential-like environment values), one redactor per key, kept across reinstalls:
 * what masks a connector's own output, and every connector's secrets in text the daemon
 * keeps (the audit trail's captured values).
 */
import { createSecretRedactor, type SecretRedactor } from '../process/index.js';

/** The redactors of every connector key. */
export interface ConnectorRedactors {
  /** The redactor of `key` (made on first use). */
  of(key: string): SecretRedactor;
  /** `text` with the secrets of every connector masked. */
  redact(text: string): string;
}

/** No redactor yet. */
export function createConnectorRedactors(): ConnectorRedactors {
  const redactors = new Map<string, SecretRedactor>();
  return {
    of(key) {
      let redactor = redactors.get(key);
      if (!redactor) {
        redactor = createSecretRedactor();
        redactors.set(key, redactor);
      }
      return redactor;
    },
    redact(text) {
      let masked = text;
      for (const redactor of redactors.values()) masked = redactor.redact(masked);
      return masked;
    },
  };
}
