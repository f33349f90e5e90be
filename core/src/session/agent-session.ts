/**
 * One agent session as an object, the handle `host.session(id)` gives: its status and
 * what it is, its projection (host-driven), its turns (daemon-driven), its refresh when
 * the tools change, its restart and its end. Who drives the agent is a strategy of the
 * session (`session-driving.ts`); its state and status transitions are its `SessionCore`.
 */
import type { ElicitationAnswer, RelayedElicitation } from '../contracts/elicitation.js';
import { isTuttiError, TuttiError } from '../errors/index.js';
import { REFRESH_STRATEGIES, type RefreshContext } from './hooks.js';
import type { HostParts } from './host-parts.js';
import type { TraceContext } from '../telemetry/trace-context.js';
import type * as T from './host-types.js';
import { projectSession } from './project-session.js';
import type { AgentProvider, LiveSession } from './provider-contract.js';
import { SessionCore, type SessionSpec } from './session-core.js';
import type { StoredSession } from './session-records.js';
import { type CameBackAs, restartSession, restoreSession } from './session-restore.js';
import { sessionScope } from './session-setup.js';
import type { SessionContext, SessionOperation } from './session-types.js';
import type { WaitingElicitation } from './turn-elicitations.js';
import { TurnRunner } from './turn-runner.js';
import type { PermissionOutcome, PromptBlock, TurnEvent } from './turn-types.js';

const DEFAULT_PERMISSION_TIMEOUT_MS = 5 * 60_000;

export type { SessionSpec } from './session-core.js';

/** One agent session; see the module doc. */
export class AgentSession {
  readonly #core: SessionCore;

  constructor(parts: HostParts, spec: SessionSpec) {
    this.#core = new SessionCore(parts, spec);
  }

  get id(): string {
    return this.#core.id;
  }

  /** Who the session is, as hooks and providers see it. */
  get context(): SessionContext {
    return this.#core.context;
  }

  get status(): T.AgentSessionStatus {
    return this.#core.status;
  }

  get mode(): T.SessionMode {
    return this.#core.driving.mode;
  }

  /** Whether the agent got the connector binding (`bound`), did not (`plain`), or not yet. */
  get connector(): T.AgentSessionInfo['connector'] {
    return this.#core.run.connector;
  }

  /** The session as `listSessions()` shows it. */
  info(): T.AgentSessionInfo {
    return this.#core.info();
  }

  /**
   * Opens a daemon-driven session through `operation` (`new`, or by the agent's own id
   * `load` or `resume`) and records it; a failed open leaves nothing running.
   */
  open(
    provider: AgentProvider,
    request: T.StartSessionRequest,
    operation: SessionOperation,
    providerSessionId?: string,
  ): Promise<T.AgentSessionInfo> {
    return this.#core.open(provider, request, operation, {
      ...(providerSessionId === undefined ? {} : { providerSessionId }),
    });
  }

  /**
   * Prepares a host-driven session: `provider`'s projection for a host that spawns the
   * agent itself, or (without a provider) the provider-neutral runtime alone.
   */
  prepareForHost(
    provider: AgentProvider | undefined,
    declared?: Readonly<Record<string, unknown>>,
    settings?: readonly string[],
  ): Promise<T.PreparedSession> {
    return this.#core.prepareForHost(provider, declared, settings);
  }

  /** The newest projection of a host-driven session (new params after a reload). */
  projection(): T.PreparedProjection {
    return this.#core.driving.projection(this.id);
  }

  /**
   * Records the agent's own id of a host-driven session (the host learns it when it opens
   * the session), so projections for a reload or resume name it.
   */
  identify(providerSessionId: string): T.AgentSessionInfo {
    this.#core.driving.identify(this.id, providerSessionId);
    return this.info();
  }

  /** The live session turns run on; TUTTI_ERR_SESSION_NOT_LIVE when there is none now. */
  live(): LiveSession {
    const { driving, status } = this.#core;
    const handle = driving.handle;
    if (!handle || !driving.runsTurns || status === 'exited') {
      throw new TuttiError('TUTTI_ERR_SESSION_NOT_LIVE', { session: this.id, status });
    }
    return handle;
  }

  /**
   * Starts a turn: `listener` gets each event, the last one `end`. Resolves once the turn
   * runs (its `done` resolves after `end`); rejects before any event when the session
   * cannot take a turn now (one at a time).
   */
  async startTurn(
    prompt: readonly PromptBlock[],
    listener: (event: TurnEvent) => void,
  ): Promise<{ done: Promise<void> }> {
    const core = this.#core;
    const handle = this.live();
    if (!handle.turn) {
      throw new TuttiError('TUTTI_ERR_TURN_UNSUPPORTED', { provider: this.context.provider });
    }
    // A refresh the session owes lands before the turn, so the turn sees the tools it brings.
    await core.turns.reserve(this.id, async () => {
      await core.refresh.settled();
      await core.refresh.relisted(() => core.toolsListed?.version ?? -1);
    });
    this.live();
    const { options, providers } = core.parts;
    const forms = providers.get(this.context.provider)?.permissions?.toolNames ?? [];
    const served = (tool: string) => core.servedTools.some((listed) => listed.name === tool);
    const turn = sessionScope.run(
      this.id,
      () =>
        new TurnRunner(handle, prompt, listener, {
          permissions: this.context.permissions,
          permissionTimeoutMs: options.permissionTimeoutMs ?? DEFAULT_PERMISSION_TIMEOUT_MS,
          provider: this.context.provider,
          session: this.id,
          tracer: core.parts.tracer,
          proof: { forms, served },
          relayedElicitations: () => options.elicitations?.pendingFor(this.id) ?? [],
        }),
    );
    if (core.turns.started(turn) && core.record) {
      core.record = { ...core.record, turns: true };
      // A session with a turn comes back with its history after a restart, not afresh.
      await options.records?.update(core.record).catch((error: unknown) => {
        core.problem("the session's first turn could not be recorded", error);
      });
    }
    return { done: turn.done };
  }

  /**
   * Where a `connector` tools/call of local tool `tool` from this session's agent hangs in
   * the running turn's trace (see `AgentSessionHost.toolCallParent`); undefined when no
   * turn runs.
   */
  toolCallParent(tool: string): TraceContext | undefined {
    return this.#core.turns.toolCallParent(tool);
  }

  /** Cancels the running turn; false when none runs. */
  cancelTurn(): boolean {
    return this.#core.turns.cancel();
  }

  /** Answers a permission request of the running turn. */
  answerPermission(requestId: string, outcome: PermissionOutcome): void {
    if (!this.#core.turns.answer(requestId, outcome)) {
      throw new TuttiError('TUTTI_ERR_TURN_UNKNOWN_PERMISSION', {
        session: this.id,
        request: requestId,
      });
    }
  }

  /** Answers an elicitation of the running turn. */
  answerElicitation(requestId: string, answer: ElicitationAnswer): void {
    if (!this.#core.turns.answerElicitation(requestId, answer)) {
      throw new TuttiError('TUTTI_ERR_TURN_UNKNOWN_ELICITATION', {
        session: this.id,
        request: requestId,
      });
    }
  }

  /**
   * What the session's agent is being asked and nobody answered yet: each elicitation the
   * `connector` server relayed to it (the daemon's board), and each its running turn
   * relayed to the host (with the `requestId` to answer it by), oldest first.
   */
  pendingElicitations(): T.PendingElicitationInfo[] {
    if (this.#core.status === 'exited') return [];
    const waiting = this.#core.turns.waitingElicitations();
    const relayed = this.#core.parts.options.elicitations?.pendingFor(this.id) ?? [];
    const shown = new Set<WaitingElicitation>();
    const listed: T.PendingElicitationInfo[] = relayed.map((entry) => {
      const asked = waiting.find(
        (turn) =>
          !shown.has(turn) && turn.relayed !== undefined && sameRelayed(turn.relayed, entry),
      );
      if (asked) shown.add(asked);
      return {
        session: this.id,
        server: 'connector',
        connector: entry.connector,
        tool: entry.tool,
        mode: entry.request.mode,
        message: entry.request.message,
        since: entry.since,
        ...(asked && { requestId: asked.requestId }),
      };
    });
    for (const turn of waiting) {
      if (shown.has(turn)) continue;
      listed.push({
        session: this.id,
        server: turn.server,
        ...(turn.connector !== undefined && { connector: turn.connector, tool: turn.tool }),
        mode: turn.request.mode,
        message: turn.request.message,
        since: turn.since,
        requestId: turn.requestId,
      });
    }
    return listed.sort((a, b) => a.since - b.since);
  }

  /** Records a `tools/list` served to the session's agent, with the tools it was served. */
  noteToolsListed(listed: T.ToolsListedRecord, tools: readonly { readonly name: string }[]): void {
    this.#core.toolsListed = Object.freeze({ ...listed });
    this.#core.servedTools = tools;
  }

  /**
   * Runs the session's refresh chain for registry `version` after any refresh it already
   * runs; resolves with what it recorded (never rejects: a failure is its record).
   */
  refresh(version: number): Promise<T.RefreshRecord> {
    const core = this.#core;
    return core.refresh.run(async () => {
      const handle = core.driving.handle;
      if (!handle || core.status === 'exited') return { version };
      const providerSessionId = handle.providerSessionId || undefined;
      const context: RefreshContext = Object.freeze({
        session: core.hookContext(core.operation, providerSessionId),
        handle,
        version,
        listChangedDelivered: core.parts.options.listChangedDelivered ?? false,
        reproject: async (operation: SessionOperation) => {
          const provider = core.parts.providers.require(this.context.provider);
          const runtime = await core.prepare({ httpMcp: true });
          const session = core.hookContext(operation, providerSessionId);
          return { runtime, params: await projectSession(core.hooks, provider, runtime, session) };
        },
      });
      try {
        const chain = core.hooks.toolsListChanged.for(this.context.provider);
        const strategy = await sessionScope.run(this.id, () => chain.promise(context));
        this.#refreshed(version, strategy);
        return strategy === undefined ? { version } : { version, strategy };
      } catch (error) {
        const message =
          isTuttiError(error) || error instanceof Error ? error.message : String(error);
        core.parts.options.onProblem?.(this.context, `refresh failed: ${message}`);
        return { version, error: message };
      }
    });
  }

  /**
   * Brings the recorded session back after a daemon restart with a fresh binding and
   * token: afresh when it had no turn, else resumed when its provider can, else loaded.
   * One that cannot come back by `within.deadline` stays `needs-restart` with the reasons.
   */
  restore(
    stored: StoredSession,
    within: { readonly deadline: number; readonly ms: number },
  ): Promise<T.AgentSessionInfo> {
    return restoreSession(this.#core, stored, within);
  }

  /**
   * Restarts a session listed `needs-restart`: resumed or loaded when its agent can, else
   * started afresh with the same id, settings and permissions. Answers how it came back.
   */
  restart(): Promise<T.AgentSessionInfo & { readonly restartedAs: CameBackAs }> {
    return restartSession(this.#core);
  }

  /**
   * Ends the session because its code let an error escape (the daemon's last line of
   * defence): exited with the reason, processes stopped, token revoked. False when it had
   * ended already.
   */
  fail(error: unknown): Promise<boolean> {
    const message = error instanceof Error ? error.message : String(error);
    return this.#core.end(`an internal error ended it: ${message}`);
  }

  /**
   * Ends the session for good as it leaves the host's table (`host.closeSession`): agent
   * closed, processes stopped, folder removed, token revoked, record forgotten,
   * `sessionClose` run.
   */
  async close(): Promise<void> {
    const core = this.#core;
    await core.stop(false);
    await core.parts.options.records?.remove(this.id).catch(() => {});
    core.publish({ type: 'session.ended', reason: 'closed' });
    await core.hooks.sessionClose.promise(this.context);
  }

  /**
   * Stops the session for a daemon shutdown: agent stopped and token revoked; a
   * daemon-driven session keeps its record and folder to come back at the next start.
   */
  suspend(): Promise<void> {
    return this.#core.stop(this.#core.driving.keepsFolder);
  }

  /** Replaced by a new session of its id: its slot and masked secrets go. */
  forget(): void {
    this.#core.forget();
  }

  /** Publishes what a refresh did; one the agent cannot take live may ask for a restart. */
  #refreshed(version: number, strategy: string | undefined): void {
    const core = this.#core;
    if (strategy === REFRESH_STRATEGIES.resumeOrRestart) {
      const after = core.driving.afterRestartAsked;
      if (after) core.become(after);
      core.reason =
        'the tool list changed and this agent cannot take it live: resume or restart it';
      core.publish({ type: 'session.needs-restart', reason: core.reason });
    }
    const action = core.driving.action(strategy);
    core.publish({ type: 'session.refreshed', version, strategy: strategy ?? 'none', action });
  }
}

/** True when `a` and `b` are the same relayed elicitation (a board may hand out copies). */
function sameRelayed(a: RelayedElicitation, b: RelayedElicitation): boolean {
  return (
    a === b ||
    (a.since === b.since &&
      a.connector === b.connector &&
      a.tool === b.tool &&
      a.request.message === b.request.message)
  );
}
