/**
 * What a session's provider is handed, and the processes started through it: the
 * `SessionSetup` whose `spawn` is the one way an agent process is started, the session's
 * processes (the newest is its agent), and the scope that blames an escaped error on the
 * session whose code threw it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { TuttiError } from '../errors/index.js';
import { type AgentProcess, type AgentSpawnSpec, spawnAgent } from '../process/agent-process.js';
import type { ProcessSupervisor } from '../process/index.js';
import type { SecretRedactor } from '../process/secret-redactor.js';
import type { SessionExit } from './host-types.js';
import type { ResolvedLaunch, RuntimePreview, SessionSetup } from './provider-contract.js';
import type { SessionFiles } from './session-files.js';
import type { SessionContext } from './session-types.js';

/** Runs code on behalf of one session: an error escaping it is blamed on that session. */
export const sessionScope = new AsyncLocalStorage<string>();

/** The id of the session whose code is running, when it is one's. */
export function currentSessionId(): string | undefined {
  return sessionScope.getStore();
}

/** The folder of a session's files: a name no caller-given id can steer outside `root`. */
export function sessionDir(root: string, provider: string, agentSessionId: string): string {
  const tag = provider.replace(/[^A-Za-z0-9-]/g, '-').slice(0, 40);
  const hash = createHash('sha256').update(agentSessionId).digest('hex').slice(0, 20);
  return join(root, `tutti-${tag}-${hash}`);
}

/** The processes started for one session; the newest is its agent. */
export class SessionProcesses {
  readonly #running = new Set<AgentProcess>();
  #agent: AgentProcess | undefined;

  /** The session's current agent process (the newest one spawned). */
  get agent(): AgentProcess | undefined {
    return this.#agent;
  }

  /** Adds `agent` as the current one; `onExit` runs when it ends without the host stopping it. */
  add(agent: AgentProcess, onExit: (agent: AgentProcess) => void): void {
    this.#running.add(agent);
    this.#agent = agent;
    void agent.exited.then(() => {
      this.#running.delete(agent);
      if (this.#agent === agent && !agent.exit?.expected) onExit(agent);
    });
  }

  /** Stops every process (their groups); the current agent stays known for its exit record. */
  async stopAll(): Promise<void> {
    await Promise.allSettled([...this.#running].map((agent) => agent.terminate()));
    if (this.#agent) await this.#agent.terminate().catch(() => {});
  }
}

/** What a session's setup is made of. */
export interface SetupParts {
  readonly session: SessionContext;
  readonly cwd: string;
  readonly files: SessionFiles;
  readonly launch: ResolvedLaunch;
  readonly timeoutMs: number;
  readonly settings: readonly string[];
  readonly processes: SessionProcesses;
  readonly supervisor?: ProcessSupervisor | undefined;
  readonly redactor?: SecretRedactor | undefined;
  /** Runs when the session's current agent ends without the host stopping it. */
  readonly onAgentExit: (agent: AgentProcess) => void;
  /** What a bound runtime of the session would carry (see `SessionSetup.preview`). */
  readonly preview: () => Promise<RuntimePreview | undefined>;
}

/** The setup a provider's methods get for one session. */
export function createSetup(parts: SetupParts): SessionSetup {
  const { session, launch } = parts;
  const provider = session.provider;
  return Object.freeze({
    session,
    cwd: parts.cwd,
    launch,
    files: parts.files,
    timeoutMs: parts.timeoutMs,
    settings: Object.freeze([...parts.settings]),
    preview: parts.preview,
    spawn(spec: Partial<AgentSpawnSpec> = {}) {
      const command = spec.command ?? launch.command;
      if (!command) throw new TuttiError('TUTTI_ERR_PROVIDER_NO_COMMAND', { provider });
      const agent = sessionScope.run(session.agentSessionId, () =>
        spawnAgent(
          {
            command,
            args: spec.args ?? launch.args,
            cwd: spec.cwd ?? parts.cwd,
            env: { ...launch.env, ...spec.env },
            ...(spec.signal ? { signal: spec.signal } : {}),
          },
          { provider, processes: parts.supervisor, redactor: parts.redactor },
        ),
      );
      parts.processes.add(agent, parts.onAgentExit);
      return agent;
    },
  });
}

/** The exit record of a session whose agent ended on its own. */
export function exitOf(agent: AgentProcess): SessionExit | undefined {
  const exit = agent.exit;
  if (!exit) return undefined;
  return Object.freeze({
    code: exit.code,
    signal: exit.signal,
    description: exit.description,
    stderr: exit.stderr,
  });
}
