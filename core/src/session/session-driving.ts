/**
 * Who drives a session's agent, as a strategy of the session: the daemon (it spawned the
 * agent, runs its turns, and brings it back after a restart) or the host (it spawned the
 * agent from a projection; what a refresh asks of the agent is told to the host).
 */
import { TuttiError } from '../errors/index.js';
import type { RefreshAction } from '../events/index.js';
import type { AgentSessionStatus, PreparedProjection, SessionMode } from './host-types.js';
import type { LiveRefresh, LiveSession } from './provider-contract.js';
import { refreshAction } from './refresh-strategies.js';

/** What a session's start made: the provider's live session, or a host's projection. */
export interface Opened {
  readonly handle?: LiveSession;
  readonly projection?: PreparedProjection;
  /** What the host's agent can take live (host-driven). */
  readonly hosted?: LiveRefresh;
}

/** What differs between a daemon-driven and a host-driven session. */
export interface Driving {
  readonly mode: SessionMode;
  /** The status of the session once its start is done. */
  readonly openStatus: AgentSessionStatus;
  /** Whether the daemon runs the session's turns. */
  readonly runsTurns: boolean;
  /** The status a refresh that asks for a resume or restart leaves, when it changes it. */
  readonly afterRestartAsked: AgentSessionStatus | undefined;
  /** Whether a daemon shutdown keeps the session's folder (it comes back at the next start). */
  readonly keepsFolder: boolean;
  /** The handle a refresh acts on, once the session is started. */
  readonly handle: LiveSession | undefined;
  /** The session's start is done. */
  opened(opened: Opened): void;
  /** What the one who drives the agent does after a refresh that `strategy` handled. */
  action(strategy: string | undefined): RefreshAction;
  /** The newest projection (host-driven); TUTTI_ERR_SESSION_NOT_HOST_DRIVEN otherwise. */
  projection(session: string): PreparedProjection;
  /** Records the agent's own session id (host-driven); TUTTI_ERR_SESSION_NOT_HOST_DRIVEN otherwise. */
  identify(session: string, providerSessionId: string): void;
}

/** The daemon spawned the agent: the handle is its provider's live session. */
export class DaemonDriven implements Driving {
  readonly mode = 'daemon';
  readonly openStatus = 'ready';
  readonly runsTurns = true;
  readonly afterRestartAsked = 'needs-restart';
  readonly keepsFolder = true;
  #handle: LiveSession | undefined;

  get handle(): LiveSession | undefined {
    return this.#handle;
  }

  opened({ handle }: Opened): void {
    this.#handle = handle;
  }

  action(strategy: string | undefined): RefreshAction {
    return refreshAction(strategy, this.mode);
  }

  projection(session: string): never {
    throw new TuttiError('TUTTI_ERR_SESSION_NOT_HOST_DRIVEN', { session });
  }

  identify(session: string): never {
    throw new TuttiError('TUTTI_ERR_SESSION_NOT_HOST_DRIVEN', { session });
  }
}

/**
 * The host spawned the agent from a projection: its handle can do what the provider says
 * the host's agent takes live; a reload keeps the new projection for the host to fetch,
 * and a reconnect or resume is asked of the host.
 */
export class HostDriven implements Driving {
  readonly mode = 'host';
  readonly openStatus = 'prepared';
  readonly runsTurns = false;
  readonly afterRestartAsked = undefined;
  readonly keepsFolder = false;
  #projection: PreparedProjection | undefined;
  #hosted: LiveRefresh = {};
  #handle: LiveSession | undefined;

  get handle(): LiveSession | undefined {
    return this.#handle;
  }

  /** `projection` and `hosted` are absent for the provider-neutral form. */
  opened({ projection, hosted }: Opened): void {
    this.#projection = projection;
    this.#hosted = hosted ?? {};
    this.#handle = this.#hostHandle('');
  }

  action(strategy: string | undefined): RefreshAction {
    return refreshAction(strategy, this.mode);
  }

  projection(session: string): PreparedProjection {
    if (!this.#projection) throw new TuttiError('TUTTI_ERR_SESSION_NOT_HOST_DRIVEN', { session });
    return this.#projection;
  }

  identify(_session: string, providerSessionId: string): void {
    this.#handle = this.#hostHandle(providerSessionId);
  }

  #hostHandle(providerSessionId: string): LiveSession {
    const { reload, reconnectBeforeNextTurn } = this.#hosted;
    return {
      providerSessionId,
      ...(reload && {
        reload: (reproject) =>
          reload(async (operation) => {
            const next = await reproject(operation);
            this.#projection = Object.freeze({
              params: next.params,
              env: this.#projection?.env ?? {},
            });
            return next;
          }),
      }),
      ...(reconnectBeforeNextTurn && { reconnectBeforeNextTurn }),
    };
  }
}
