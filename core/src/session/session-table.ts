/**
 * The host's sessions by id: adding one (a fresh id unless one is asked for, within the
 * session limit, its env masked in every error while it lives), re-issuing a host-driven
 * one, and forgetting the oldest ended ones past a bound.
 */
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { TuttiError } from '../errors/index.js';
import type { SecretRedactor } from '../process/secret-redactor.js';
import { createEntry, type SessionEntry } from './session-entry.js';
import type { SessionContext, SessionOperation } from './session-types.js';
import type { PermissionMode } from './turn-types.js';

const DEFAULT_MAX_SESSIONS = 64;
/** Ended sessions kept listed (with their reasons) until closed; older ones are forgotten. */
const EXITED_KEPT = 64;

/** What a new session is asked with. */
export interface SessionAsk {
  readonly agentSessionId?: string;
  readonly workspaceId: string;
  readonly cwd: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly permissions?: PermissionMode;
}

/** Options of {@link SessionTable}. */
export interface SessionTableOptions {
  /** Most sessions holding an agent or a token at once (default 64). */
  readonly maxSessions?: number | undefined;
  /** Parent of the session folders (default the temp folder). */
  readonly sessionsDir?: string | undefined;
  readonly redactor?: SecretRedactor | undefined;
}

export class SessionTable {
  readonly #entries = new Map<string, SessionEntry>();
  readonly #options: SessionTableOptions;

  constructor(options: SessionTableOptions) {
    this.#options = options;
  }

  get(agentSessionId: string): SessionEntry | undefined {
    return this.#entries.get(agentSessionId);
  }

  /** The session of that id; TUTTI_ERR_SESSION_UNKNOWN when there is none. */
  entry(agentSessionId: string): SessionEntry {
    const entry = this.#entries.get(agentSessionId);
    if (!entry) throw new TuttiError('TUTTI_ERR_SESSION_UNKNOWN', { session: agentSessionId });
    return entry;
  }

  values(): SessionEntry[] {
    return [...this.#entries.values()];
  }

  ids(): string[] {
    return [...this.#entries.keys()];
  }

  delete(agentSessionId: string): void {
    this.#entries.delete(agentSessionId);
  }

  /**
   * Adds a session; refused when its id is taken or, for one that will hold an agent or a
   * token (`live`, the default), when the session limit is reached.
   */
  add(
    request: SessionAsk,
    provider: string,
    flags: SessionContext['capabilities'],
    mode: SessionEntry['mode'],
    baseEnv: Readonly<Record<string, string>>,
    operation: SessionOperation,
    live = true,
  ): SessionEntry {
    const agentSessionId = request.agentSessionId ?? randomUUID();
    const existing = this.#entries.get(agentSessionId);
    if (existing && existing.status !== 'exited' && existing.status !== 'needs-restart') {
      throw new TuttiError('TUTTI_ERR_SESSION_EXISTS', { session: agentSessionId });
    }
    // An id that is not live (ended, or waiting for a restart) is taken by the new session.
    if (existing) {
      this.#entries.delete(agentSessionId);
      for (const forget of existing.forget.splice(0)) forget();
    }
    const max = this.#options.maxSessions ?? DEFAULT_MAX_SESSIONS;
    if (live && this.#live() >= max) throw new TuttiError('TUTTI_ERR_SESSION_LIMIT', { max });
    const session: SessionContext = Object.freeze({
      agentSessionId,
      workspaceId: request.workspaceId,
      provider,
      capabilities: Object.freeze({ ...flags }),
      permissions: request.permissions ?? 'ask',
    });
    const entry = createEntry({
      session,
      mode,
      cwd: request.cwd,
      baseEnv,
      sessionsDir: this.#options.sessionsDir ?? tmpdir(),
      operation,
    });
    entry.forget.push(this.#options.redactor?.addEnv(baseEnv) ?? (() => {}));
    this.#entries.set(agentSessionId, entry);
    return entry;
  }

  /**
   * A host-driven session asked for again by the same host re-issues its token (the old one
   * stops at once); a daemon-driven one is rebound only through its own resume.
   */
  addOrReuse(
    request: SessionAsk,
    provider: string,
    flags: SessionContext['capabilities'],
  ): SessionEntry {
    const existing = request.agentSessionId ? this.#entries.get(request.agentSessionId) : undefined;
    if (
      existing &&
      existing.mode === 'host' &&
      existing.session.workspaceId === request.workspaceId &&
      existing.session.provider === provider
    ) {
      this.#entries.delete(existing.session.agentSessionId);
      for (const forget of existing.forget.splice(0)) forget();
    } else if (existing) {
      throw new TuttiError('TUTTI_ERR_SESSION_EXISTS', {
        session: existing.session.agentSessionId,
      });
    }
    return this.add(request, provider, flags, 'host', { ...request.env }, 'new');
  }

  /** Forgets the oldest ended sessions past EXITED_KEPT. */
  forgetOldExited(): void {
    const exited = this.values().filter((entry) => entry.status === 'exited');
    for (const entry of exited.slice(0, Math.max(0, exited.length - EXITED_KEPT))) {
      this.#entries.delete(entry.session.agentSessionId);
    }
  }

  /**
   * Sessions that hold an agent or a token: the ones the session cap counts. An ended one
   * and one that needs a restart hold neither.
   */
  #live(): number {
    let live = 0;
    for (const entry of this.#entries.values()) {
      if (entry.status !== 'exited' && entry.status !== 'needs-restart') live += 1;
    }
    return live;
  }
}
