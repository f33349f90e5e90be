/**
 * The host's sessions by id: a new session takes the id of one that is not live (ended, or
 * waiting for a restart), a host-driven one asked for again by its host replaces itself,
 * and the oldest ended ones are forgotten past a bound.
 */
import { randomUUID } from 'node:crypto';
import type { ProviderFlags } from '../contracts/index.js';
import { TuttiError } from '../errors/index.js';
import { AgentSession } from './agent-session.js';
import type { HostParts } from './host-parts.js';
import type { Driving } from './session-driving.js';
import type { PermissionMode } from './turn-types.js';

/** Ended sessions kept listed (with their reasons) until closed; older ones are forgotten. */
const EXITED_KEPT = 64;

/** What a new session is asked with. */
export interface SessionAsk {
  readonly agentSessionId?: string | undefined;
  readonly workspaceId: string;
  readonly cwd: string;
  readonly permissions?: PermissionMode | undefined;
  readonly provider: string;
  /** The provider's flags (none when no such provider is registered). */
  readonly flags: Readonly<ProviderFlags> | undefined;
}

export class SessionTable {
  readonly #sessions = new Map<string, AgentSession>();

  /** The session of that id, if any. */
  get(agentSessionId: string): AgentSession | undefined {
    return this.#sessions.get(agentSessionId);
  }

  /** The session of that id; TUTTI_ERR_SESSION_UNKNOWN when there is none. */
  require(agentSessionId: string): AgentSession {
    const session = this.#sessions.get(agentSessionId);
    if (!session) throw new TuttiError('TUTTI_ERR_SESSION_UNKNOWN', { session: agentSessionId });
    return session;
  }

  /** Every session, oldest first (past EXITED_KEPT ended ones, the oldest are forgotten). */
  values(): AgentSession[] {
    const exited = [...this.#sessions.values()].filter((session) => session.status === 'exited');
    for (const session of exited.slice(0, Math.max(0, exited.length - EXITED_KEPT))) {
      this.#sessions.delete(session.id);
    }
    return [...this.#sessions.values()];
  }

  /**
   * Adds a new session (a fresh id unless one is asked for, within the session limit). It
   * takes the id of one that is not live, or of one it `replaces`; any other holder of the
   * id refuses it with TUTTI_ERR_SESSION_EXISTS.
   */
  add(
    parts: HostParts,
    ask: SessionAsk,
    driving: Driving,
    how: {
      readonly baseEnv: Record<string, string>;
      readonly status?: 'needs-restart';
      readonly replaces?: (holder: AgentSession) => boolean;
    },
  ): AgentSession {
    const agentSessionId = ask.agentSessionId ?? randomUUID();
    const holder = this.#sessions.get(agentSessionId);
    if (holder) {
      if (!(how.replaces ?? notLive)(holder)) {
        throw new TuttiError('TUTTI_ERR_SESSION_EXISTS', { session: agentSessionId });
      }
      this.#sessions.delete(agentSessionId);
      holder.forget();
    }
    const session = new AgentSession(parts, {
      agentSessionId,
      workspaceId: ask.workspaceId,
      provider: ask.provider,
      flags: ask.flags ?? { httpMcp: false, listChanged: false },
      permissions: ask.permissions ?? 'ask',
      cwd: ask.cwd,
      baseEnv: how.baseEnv,
      driving,
      status: how.status ?? 'starting',
    });
    this.#sessions.set(agentSessionId, session);
    return session;
  }

  /** Removes the session from the table, if it is the one listed under its id. */
  delete(session: AgentSession): void {
    if (this.#sessions.get(session.id) === session) this.#sessions.delete(session.id);
  }
}

/** An ended session, or one waiting for a restart: its id may be taken by a new one. */
function notLive(session: AgentSession): boolean {
  return session.status === 'exited' || session.status === 'needs-restart';
}

/**
 * A host-driven session asked for again by the same host re-issues its token (the old one
 * stops at once); a daemon-driven one is rebound only through its own resume.
 */
export function askedAgain(ask: Pick<SessionAsk, 'workspaceId' | 'provider'>) {
  return (holder: AgentSession) =>
    holder.mode === 'host' &&
    holder.context.workspaceId === ask.workspaceId &&
    holder.context.provider === ask.provider;
}
