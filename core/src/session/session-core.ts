/**
 * The state of one session that its parts share, and every transition of its status: who
 * it is, who drives it, its current run (what one start made), its refresh queue and
 * turns, what its agent last listed, why it ended or waits, its record. `AgentSession` is
 * the handle on it; a restore works on it through the same methods.
 */
import { tmpdir } from 'node:os';
import type { PreparedRuntime, ProviderFlags } from '../contracts/index.js';
import type { TuttiEventBody } from '../events/index.js';
import type { AgentProcess } from '../process/agent-process.js';
import { stderrSentence } from './agent-channel.js';
import type { SessionHooks } from './hooks.js';
import type { HostParts } from './host-parts.js';
import type * as T from './host-types.js';
import { startError } from './open-session.js';
import type { AgentProvider } from './provider-contract.js';
import type { Driving, Opened } from './session-driving.js';
import { type SessionFiles, sessionFiles } from './session-files.js';
import { sessionRecordOf } from './recorded-session.js';
import type { SessionRecord, StoredSession } from './session-records.js';
import { RefreshQueue } from './session-refresh.js';
import { SessionRun } from './session-run.js';
import { sessionDir } from './session-setup.js';
import { SessionTurns } from './session-turns.js';
import type * as S from './session-types.js';
import type { PermissionMode } from './turn-types.js';

const DEFAULT_AGENT_TIMEOUT_MS = 60_000;

/** Who a new session is and how it starts. */
export interface SessionSpec {
  readonly agentSessionId: string;
  readonly workspaceId: string;
  readonly provider: string;
  readonly flags: Readonly<ProviderFlags>;
  readonly permissions: PermissionMode;
  readonly cwd: string;
  /** Environment the preparer starts from. */
  readonly baseEnv: Readonly<Record<string, string>>;
  readonly driving: Driving;
  /** `starting` takes a live slot at once; a recorded session comes back from `needs-restart`. */
  readonly status: 'starting' | 'needs-restart';
}

export class SessionCore {
  readonly context: S.SessionContext;
  readonly cwd: string;
  readonly files: SessionFiles;
  readonly baseEnv: Readonly<Record<string, string>>;
  readonly parts: HostParts;
  readonly driving: Driving;
  readonly turns = new SessionTurns();
  run: SessionRun;
  refresh = new RefreshQueue();
  /** How the session was last opened (what a refresh's hook context says). */
  operation: S.SessionOperation = 'new';
  /** Why the session ended or waits for a restart. */
  reason: string | undefined;
  toolsListed: T.ToolsListedRecord | undefined;
  /** The tools of the last `tools/list` served to its token (what proves a connector call). */
  servedTools: readonly { readonly name: string }[] = [];
  record: SessionRecord | undefined;
  /** What restarts a session listed `needs-restart`. */
  stored: StoredSession | undefined;
  #status: T.AgentSessionStatus = 'exited';
  /** Off the host's table: its agent's end is no longer its concern. */
  #gone = false;

  constructor(parts: HostParts, spec: SessionSpec) {
    this.parts = parts;
    this.driving = spec.driving;
    this.context = Object.freeze({
      agentSessionId: spec.agentSessionId,
      workspaceId: spec.workspaceId,
      provider: spec.provider,
      capabilities: Object.freeze({ ...spec.flags }),
      permissions: spec.permissions,
    });
    this.cwd = spec.cwd;
    this.baseEnv = Object.freeze({ ...spec.baseEnv });
    const root = parts.options.sessionsDir ?? tmpdir();
    this.files = sessionFiles(sessionDir(root, spec.provider, spec.agentSessionId));
    this.become(spec.status);
    this.run = new SessionRun(parts, this);
  }

  get id(): string {
    return this.context.agentSessionId;
  }

  get status(): T.AgentSessionStatus {
    return this.#status;
  }

  get hooks(): SessionHooks {
    return this.parts.hooks;
  }

  /** Longest time one request to the agent may take (and a start, by default). */
  get timeoutMs(): number {
    return this.parts.options.agentTimeoutMs ?? DEFAULT_AGENT_TIMEOUT_MS;
  }

  /** The session as `listSessions()` shows it. */
  info(): T.AgentSessionInfo {
    const { run } = this;
    const pid = run.processes.agent?.pid;
    const handle = this.driving.handle;
    const steps = Object.keys(run.steps).length > 0 ? { ...run.steps } : undefined;
    return {
      id: this.id,
      workspaceId: this.context.workspaceId,
      provider: this.context.provider,
      mode: this.driving.mode,
      status: this.#status,
      connector: run.connector,
      permissions: this.context.permissions,
      ...(handle ? { providerSessionId: handle.providerSessionId } : {}),
      ...(pid ? { pid } : {}),
      ...(steps ? { startSteps: steps } : {}),
      ...(this.refresh.last ? { lastRefresh: this.refresh.last } : {}),
      ...(this.toolsListed ? { toolsListed: this.toolsListed } : {}),
      ...(this.reason ? { reason: this.reason } : {}),
      ...(run.exit ? { exit: run.exit } : {}),
      ...(run.authMethods.length > 0 ? { authMethods: run.authMethods } : {}),
    };
  }

  /** Moves to `status`: a session holds a live slot unless it ended or waits for a restart. */
  become(status: T.AgentSessionStatus): void {
    if (status === 'exited' || status === 'needs-restart') this.parts.slots.free(this);
    else this.parts.slots.take(this);
    this.#status = status;
  }

  /**
   * Opens a daemon-driven session through `operation` and records it. A failed open stops
   * what it started, revokes its token and throws the start's answer.
   */
  async open(
    provider: AgentProvider,
    request: T.StartSessionRequest,
    operation: S.SessionOperation,
    options: { providerSessionId?: string; timeoutMs?: number; startedAt?: string } = {},
  ): Promise<T.AgentSessionInfo> {
    const { run } = this;
    this.operation = operation;
    try {
      const onExit = (agent: AgentProcess) => this.agentEnded(run, agent);
      const handle = await run.open(this, provider, request, operation, options, onExit);
      this.#opened({ handle });
      const agent = run.processes.agent;
      if (agent?.exit && !agent.exit.expected) this.agentEnded(run, agent);
      await this.#writeRecord(request, handle.providerSessionId, options.startedAt);
      this.publish({ type: 'session.started', connector: run.connector });
      return this.info();
    } catch (error) {
      const answer = startError(provider.name, this.id, run.processes.agent, error);
      await run.teardown(this.driving.handle);
      throw answer;
    }
  }

  /**
   * Prepares a host-driven session for a host that spawns the agent itself: `provider`'s
   * projection, or (without a provider) the provider-neutral runtime alone.
   */
  async prepareForHost(
    provider: AgentProvider | undefined,
    declared?: Readonly<Record<string, unknown>>,
    settings?: readonly string[],
  ): Promise<T.PreparedSession> {
    const { run } = this;
    try {
      let prepared: T.PreparedSession;
      if (provider) {
        const { hosted, ...made } = await run.prepareForHost(this, provider, declared, settings);
        prepared = { agentSessionId: this.id, ...made };
        this.#opened({ projection: made.projection, hosted });
      } else {
        const runtime = await this.prepare({ httpMcp: this.context.capabilities.httpMcp });
        prepared = { agentSessionId: this.id, runtime };
        this.#opened({});
      }
      this.publish({ type: 'session.started', connector: run.connector });
      return prepared;
    } catch (error) {
      await run.teardown(undefined);
      throw provider ? startError(provider.name, this.id, run.processes.agent, error) : error;
    }
  }

  /** Prepares the session's runtime for `probe` (a fresh token, which revokes the old one). */
  prepare(probe: S.AgentProbe | undefined): Promise<PreparedRuntime> {
    return this.run.prepare(probe);
  }

  /** Records what the agent declared in its handshake. */
  declare(declared: Readonly<Record<string, unknown>>): void {
    this.run.declare(declared);
  }

  /** Records how the agent says a person signs in to it (shown in `info()`). */
  announceAuth(methods: readonly S.AgentAuthMethod[]): void {
    this.run.authMethods = methods;
  }

  /** The context projection and refresh taps see for `operation`. */
  hookContext(operation: S.SessionOperation, providerSessionId?: string): S.SessionHookContext {
    const { declared } = this.run;
    return Object.freeze({
      ...this.context,
      operation,
      ...(providerSessionId === undefined ? {} : { providerSessionId }),
      ...(declared ? { declared } : {}),
      filesDir: this.files.dir,
      drivenBy: this.driving.mode,
    });
  }

  /** A new run of the session (it starts again): what an earlier start left is forgotten. */
  renew(hadTurn: boolean): void {
    this.run.forgetSecrets();
    this.run = new SessionRun(this.parts, this);
    this.driving.opened({});
    this.refresh = new RefreshQueue();
    this.turns.reset(hadTurn);
    this.reason = undefined;
    this.toolsListed = undefined;
    this.servedTools = [];
    this.record = undefined;
  }

  /** The current agent of `run` ended without the host stopping it. */
  agentEnded(run: SessionRun, agent: AgentProcess): void {
    if (this.#status === 'starting' || this.#gone || run !== this.run) return;
    const exit = run.ended(agent);
    const what = exit ? `exited (${exit.description})` : 'ended';
    void this.end(`the agent ${what}.${stderrSentence(exit?.stderr ?? [])}`);
  }

  /**
   * Marks the session exited with `reason`, stops what is left of it, revokes its token and
   * forgets its record (an ended session is not brought back by the next start). It stays
   * listed with its reason until it is closed. False when it had ended already.
   */
  async end(reason: string): Promise<boolean> {
    if (this.#status === 'exited') return false;
    this.become('exited');
    this.reason = reason;
    this.turns.cancel();
    void this.parts.options.records?.remove(this.id).catch(() => {});
    this.publish({ type: 'session.ended', reason });
    await this.run.teardown(undefined);
    return true;
  }

  /** Stops the session as it leaves the host's table (closed, or the daemon shuts down). */
  async stop(keepFiles: boolean): Promise<void> {
    this.#gone = true;
    this.parts.slots.free(this);
    this.turns.cancel();
    await this.refresh.settled();
    await this.run.teardown(this.driving.handle, keepFiles);
  }

  /** Off the host's table: its slot and masked secrets go, its agent's end is ignored. */
  forget(): void {
    this.#gone = true;
    this.parts.slots.free(this);
    this.run.forgetSecrets();
  }

  /** Publishes an event of this session. */
  publish(event: DistributiveOmit<SessionEvent, 'session' | 'provider'>): void {
    const { agentSessionId: session, provider } = this.context;
    this.parts.options.events?.publish({ ...event, session, provider } as SessionEvent);
  }

  /** Tells `onProblem` what went wrong that nobody else reports. */
  problem(lead: string, error: unknown): void {
    const message = error instanceof Error ? error.message : String(error);
    this.parts.options.onProblem?.(this.context, `${lead}: ${message}`);
  }

  #opened(opened: Opened): void {
    this.driving.opened(opened);
    if (this.#status === 'starting') this.become(this.driving.openStatus);
  }

  /** Keeps the session's record (when the host keeps records). */
  async #writeRecord(
    request: T.StartSessionRequest,
    providerSessionId: string,
    startedAt = new Date().toISOString(),
  ): Promise<void> {
    const records = this.parts.options.records;
    if (!records) return;
    const record = sessionRecordOf(this, request, providerSessionId, startedAt, this.turns.had);
    this.record = record;
    try {
      await records.put(record, request.env ?? {}, request.launch?.env ?? {});
    } catch (error) {
      this.problem('the session could not be recorded for a restart', error);
    }
  }
}

/** The events a session publishes. */
type SessionEvent = Extract<TuttiEventBody, { session: string; provider: string }>;
type DistributiveOmit<E, K extends PropertyKey> = E extends unknown ? Omit<E, K> : never;
