/**
 * An in-memory secret vault for OAuth tests (the shape of core's `SecretVault`): values
 * wrapped so they print `[redacted]`, and a log of every change in order
 * (`set <slot> <last 8 chars>`, `delete <slot>`), so a test can see when a refresh token
 * was stored relative to other events.
 */

const REDACTED = '[redacted]';

/** A stored value that prints `[redacted]`. */
export interface VaultSecret {
  reveal(): string;
  equals(other: VaultSecret): boolean;
  toString(): string;
  toJSON(): string;
}

type Slot = 'secret' | 'refresh_token' | 'client_secret';

/** The vault and its change log. */
export interface MemoryVault {
  readonly kind: 'file';
  readonly log: string[];
  get(key: string, slot: Slot): Promise<VaultSecret | undefined>;
  set(key: string, slot: Slot, value: VaultSecret): Promise<void>;
  delete(key: string, slot: Slot): Promise<void>;
  deleteAll(key: string): Promise<void>;
  /** The raw value in `slot` of `key` (tests only). */
  peek(key: string, slot: Slot): string | undefined;
}

function wrap(value: string): VaultSecret {
  return {
    reveal: () => value,
    equals: (other) => other.reveal() === value,
    toString: () => REDACTED,
    toJSON: () => REDACTED,
  };
}

/**
 * An empty vault; `shared` (the map of another vault) lets a "restarted daemon" read what
 * the previous one stored.
 */
export function createMemoryVault(
  shared: Map<string, string> = new Map(),
  /** How long a `set` takes to become durable (a keychain write takes ~20 ms). */
  setDelayMs = 0,
): MemoryVault & {
  readonly items: Map<string, string>;
} {
  const log: string[] = [];
  return {
    kind: 'file',
    log,
    items: shared,
    async get(key, slot) {
      const value = shared.get(`${key}/${slot}`);
      return value === undefined ? undefined : wrap(value);
    },
    async set(key, slot, value) {
      if (setDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, setDelayMs));
      shared.set(`${key}/${slot}`, value.reveal());
      log.push(`set ${slot} ${value.reveal().slice(-8)}`);
    },
    async delete(key, slot) {
      if (shared.delete(`${key}/${slot}`)) log.push(`delete ${slot}`);
    },
    async deleteAll(key) {
      for (const name of [...shared.keys()]) if (name.startsWith(`${key}/`)) shared.delete(name);
      log.push('delete all');
    },
    peek: (key, slot) => shared.get(`${key}/${slot}`),
  };
}
