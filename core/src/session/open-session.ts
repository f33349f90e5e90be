/**
 * The host's steps that open a session through its provider's driver, in the order the
 * driver's kind needs:
 *
 *   handshake kinds:    spawn -> handshake -> prepare -> project -> taps -> check
 *                       -> materialize (-> respawn, when it asks) -> open
 *   config-first kinds: prepare -> project -> taps -> check -> materialize -> open (which spawns)
 *
 * and the host-driven form, which stops after materialize and hands the projection over.
 */
import type { PreparedRuntime } from '../contracts/index.js';
import { isTuttiError, TuttiError } from '../errors/index.js';
import type { AgentProcess } from '../process/agent-process.js';
import { stderrSentence } from './agent-channel.js';
import type { SessionHooks } from './hooks.js';
import type { PreparedProjection } from './host-types.js';
import { projectSession } from './project-session.js';
import type {
  AgentProvider,
  LiveRefresh,
  LiveSession,
  SessionDriver,
  SessionSetup,
} from './provider-contract.js';
import type {
  AgentAuthMethod,
  AgentProbe,
  SessionHookContext,
  SessionOperation,
} from './session-types.js';

/** The session a start runs for, as the steps see it (an `AgentSession`). */
export interface Starting {
  readonly hooks: SessionHooks;
  /** Prepares the session's runtime for `probe` (undefined: the probe failed). */
  prepare(probe: AgentProbe | undefined): Promise<PreparedRuntime>;
  /** Records what the agent declared in its handshake. */
  declare(declared: Readonly<Record<string, unknown>>): void;
  /** Records how the agent says a person signs in to it. */
  announceAuth(methods: readonly AgentAuthMethod[]): void;
  /** The context projection taps see for `operation`. */
  hookContext(operation: SessionOperation, providerSessionId?: string): SessionHookContext;
}

/** Opens a daemon-driven session through `driver`; `steps` gets how long each step took. */
export async function openDaemonSession(
  session: Starting,
  provider: AgentProvider,
  driver: SessionDriver,
  setup: SessionSetup,
  operation: SessionOperation,
  providerSessionId: string | undefined,
  steps: Record<string, number>,
): Promise<LiveSession> {
  let probe: AgentProbe | undefined = { httpMcp: provider.flags.httpMcp };
  const step = stepClock(steps);
  const pre = driver.handshake ? ((await driver.prelaunch?.()) ?? {}) : {};
  step('prelaunch');
  const spawn = () =>
    setup.spawn({
      ...(pre.env ? { env: pre.env } : {}),
      ...(pre.args ? { args: [...setup.launch.args, ...pre.args] } : {}),
    });
  let agent = driver.handshake ? spawn() : undefined;
  if (agent && driver.handshake) {
    await agent.started;
    step('spawn');
    const declared = await driver.handshake(agent);
    if (declared) session.declare(declared);
    session.announceAuth(driver.authMethods?.() ?? []);
    probe = declared && provider.probeOf ? provider.probeOf(declared) : undefined;
    step('handshake');
  }
  const runtime = await session.prepare(probe);
  step('prepare');
  const context = session.hookContext(operation, providerSessionId);
  const params = await projectSession(session.hooks, provider, runtime, context);
  step('project');
  const materialized = (await driver.materialize?.(params, runtime)) ?? {};
  if (materialized.respawn && agent && driver.handshake) {
    agent = await respawn(provider.name, driver.handshake.bind(driver), agent, spawn);
  }
  step('materialize');
  const live = await driver.open({
    operation,
    params,
    runtime,
    agent,
    ...(providerSessionId === undefined ? {} : { providerSessionId }),
    env: { ...runtime.env, ...pre.env, ...materialized.env },
  });
  step('open');
  return live;
}

/**
 * Starts the agent once more the way it was started, for a driver whose `materialize`
 * rewrote what the running agent read at its start; its handshake must answer again.
 */
async function respawn(
  provider: string,
  handshake: NonNullable<SessionDriver['handshake']>,
  agent: AgentProcess,
  spawn: () => AgentProcess,
): Promise<AgentProcess> {
  await agent.terminate();
  const next = spawn();
  await next.started;
  if (!(await handshake(next))) {
    throw new TuttiError('TUTTI_ERR_PROVIDER_REQUEST_FAILED', {
      provider,
      method: 'handshake',
      reason: 'the agent, started again to read what the session wrote for it, did not answer',
    });
  }
  return next;
}

/** Records into `steps` the ms since the previous mark under each name it is called with. */
function stepClock(steps: Record<string, number>): (name: string) => void {
  let last = performance.now();
  return (name) => {
    const now = performance.now();
    steps[name] = Math.round((now - last) * 10) / 10;
    last = now;
  };
}

/**
 * Prepares, projects and materializes a host-driven session through `driver`; the
 * projection is the host's, and so is `hosted`, what its agent can take live.
 */
export async function prepareHostSession(
  session: Starting,
  provider: AgentProvider,
  driver: SessionDriver,
  declared: Readonly<Record<string, unknown>> | undefined,
): Promise<{ runtime: PreparedRuntime; projection: PreparedProjection; hosted: LiveRefresh }> {
  let probe: AgentProbe | undefined = { httpMcp: provider.flags.httpMcp };
  const pre = (await driver.prelaunch?.()) ?? {};
  if (driver.handshake) {
    if (!declared) {
      throw new TuttiError('TUTTI_ERR_SESSION_DECLARATION_NEEDED', { provider: provider.name });
    }
    session.declare(declared);
    probe = provider.probeOf ? provider.probeOf(declared) : undefined;
  }
  const runtime = await session.prepare(probe);
  const params = await projectSession(session.hooks, provider, runtime, session.hookContext('new'));
  const materialized = (await driver.materialize?.(params, runtime)) ?? {};
  return {
    runtime,
    projection: Object.freeze({
      params,
      env: { ...pre.env, ...materialized.env },
      ...(pre.args?.length ? { args: [...pre.args] } : {}),
    }),
    hosted: driver.hosted?.(declared) ?? {},
  };
}

/**
 * The error a failed start answers: the agent's own end when it ended meanwhile (what it
 * says is more useful than what the protocol layer saw); a request the agent failed, with
 * its last stderr lines; else the error as it is.
 */
export function startError(
  provider: string,
  agentSessionId: string,
  agent: AgentProcess | undefined,
  error: unknown,
): TuttiError {
  const ended = agent?.exit;
  const fault =
    isTuttiError(error, 'TUTTI_ERR_PROVIDER_AGENT_EXITED') ||
    isTuttiError(error, 'TUTTI_ERR_PROVIDER_AGENT_MISBEHAVED') ||
    isTuttiError(error, 'TUTTI_ERR_PROVIDER_SPAWN_FAILED');
  if (ended && !ended.expected && !fault) {
    return new TuttiError(
      'TUTTI_ERR_PROVIDER_AGENT_EXITED',
      {
        provider,
        method: 'start',
        what: `exited (${ended.description})`,
        stderr: stderrSentence(ended.stderr),
      },
      { cause: error },
    );
  }
  if (isTuttiError(error) && !isTuttiError(error, 'TUTTI_ERR_PROVIDER_REQUEST_FAILED')) {
    return error;
  }
  return new TuttiError(
    'TUTTI_ERR_SESSION_START_FAILED',
    {
      provider,
      session: agentSessionId,
      reason: (error instanceof Error ? error.message : String(error)).replace(/\.\s*$/, ''),
      stderr: agent ? stderrSentence(agent.stderrLines()) : '',
    },
    { cause: error },
  );
}

/**
 * Runs a start within `ms`; past it the start fails with TUTTI_ERR_SESSION_START_TIMEOUT
 * and the last stderr lines of the session's `agent()` (the caller stops the agent).
 */
export async function withinStartTimeout<T>(
  provider: string,
  agentSessionId: string,
  agent: () => AgentProcess | undefined,
  ms: number,
  start: () => Promise<T>,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const running = start();
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      running.catch(() => {});
      reject(
        new TuttiError('TUTTI_ERR_SESSION_START_TIMEOUT', {
          provider,
          session: agentSessionId,
          ms,
          stderr: stderrSentence(agent()?.stderrLines() ?? []),
        }),
      );
    }, ms);
  });
  try {
    return await Promise.race([running, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
