/**
 * The steps that open a session, in the order its provider's kind needs:
 *
 *   handshake kinds:    spawn -> handshake -> prepare -> project -> check -> materialize -> open
 *   config-first kinds: prepare -> project -> check -> materialize -> open (which spawns)
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
import type { AgentProvider, LiveSession, SessionSetup } from './provider-contract.js';
import type { AgentProbe, SessionHookContext, SessionOperation } from './session-types.js';

/** The session a start runs for, as the steps see it (an `AgentSession`). */
export interface Starting {
  readonly hooks: SessionHooks;
  /** Prepares the session's runtime for `probe` (undefined: the probe failed). */
  prepare(probe: AgentProbe | undefined): Promise<PreparedRuntime>;
  /** Records what the agent declared in its handshake. */
  declare(declared: Readonly<Record<string, unknown>>): void;
  /** The context projection taps see for `operation`. */
  hookContext(operation: SessionOperation, providerSessionId?: string): SessionHookContext;
}

/** Opens a daemon-driven session; `steps` gets how long each step took. */
export async function openDaemonSession(
  session: Starting,
  provider: AgentProvider,
  setup: SessionSetup,
  operation: SessionOperation,
  providerSessionId: string | undefined,
  steps: Record<string, number>,
): Promise<LiveSession> {
  let state: unknown;
  let probe: AgentProbe | undefined = { httpMcp: provider.flags.httpMcp };
  const step = stepClock(steps);
  const pre = provider.handshake ? ((await provider.prelaunch?.(setup)) ?? {}) : {};
  step('prelaunch');
  const agent = provider.handshake
    ? setup.spawn({
        ...(pre.env ? { env: pre.env } : {}),
        ...(pre.args ? { args: [...setup.launch.args, ...pre.args] } : {}),
      })
    : undefined;
  if (agent && provider.handshake) {
    await agent.started;
    step('spawn');
    const handshake = await provider.handshake(agent, setup);
    state = handshake.state;
    if (handshake.declared) session.declare(handshake.declared);
    probe =
      handshake.declared && provider.probeOf ? provider.probeOf(handshake.declared) : undefined;
    step('handshake');
  }
  const runtime = await session.prepare(probe);
  step('prepare');
  const context = session.hookContext(operation, providerSessionId);
  const params = await projectSession(session.hooks, provider, runtime, context);
  step('project');
  const materialized = (await provider.materialize?.(params as never, runtime, setup)) ?? {};
  step('materialize');
  const open =
    operation === 'new'
      ? provider.newSession
      : operation === 'load'
        ? provider.loadSession
        : provider.resumeSession;
  if (!open) {
    throw new TuttiError('TUTTI_ERR_SESSION_UNSUPPORTED', { provider: provider.name, operation });
  }
  const live = await open.call(provider, {
    setup,
    params: params as never,
    runtime,
    state,
    agent,
    ...(providerSessionId === undefined ? {} : { providerSessionId }),
    env: { ...runtime.env, ...pre.env, ...materialized.env },
  });
  step('open');
  return live;
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

/** Prepares, projects and materializes a host-driven session of `provider`. */
export async function prepareHostSession(
  session: Starting,
  provider: AgentProvider,
  setup: SessionSetup,
  declared: Readonly<Record<string, unknown>> | undefined,
): Promise<{ runtime: PreparedRuntime; projection: PreparedProjection }> {
  let probe: AgentProbe | undefined = { httpMcp: provider.flags.httpMcp };
  const pre = (await provider.prelaunch?.(setup)) ?? {};
  if (provider.handshake) {
    if (!declared) {
      throw new TuttiError('TUTTI_ERR_SESSION_DECLARATION_NEEDED', { provider: provider.name });
    }
    session.declare(declared);
    probe = provider.probeOf ? provider.probeOf(declared) : undefined;
  }
  const runtime = await session.prepare(probe);
  const params = await projectSession(session.hooks, provider, runtime, session.hookContext('new'));
  const materialized = (await provider.materialize?.(params as never, runtime, setup)) ?? {};
  return {
    runtime,
    projection: Object.freeze({
      params,
      env: { ...pre.env, ...materialized.env },
      ...(pre.args?.length ? { args: [...pre.args] } : {}),
    }),
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
