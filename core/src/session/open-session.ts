/**
 * The steps that open a daemon-driven session, in the order its provider's kind needs:
 *
 *   handshake kinds:    spawn -> handshake -> prepare -> project -> check -> materialize -> open
 *   config-first kinds: prepare -> project -> check -> materialize -> open (which spawns)
 *
 * and the host-driven form, which stops after materialize and hands the projection over.
 */
import type { PreparedRuntime } from '../contracts/index.js';
import { isTuttiError, TuttiError } from '../errors/index.js';
import type { PreparedProjection } from './host-types.js';
import { stderrSentence } from './agent-channel.js';
import { projectSession } from './project-session.js';
import type { AgentProvider, LiveSession, SessionSetup } from './provider-contract.js';
import type { SessionEntry } from './session-entry.js';
import type { AgentProbe, SessionHookContext, SessionOperation } from './session-types.js';
import type { SessionHooks } from './hooks.js';

/** What the steps need from the host. */
export interface OpenServices {
  readonly hooks: SessionHooks;
  /** Prepares the entry's runtime for `probe` (undefined: the probe failed). */
  prepare(entry: SessionEntry, probe: AgentProbe | undefined): Promise<PreparedRuntime>;
}

/** The hook context of `entry` for `operation`. */
export function hookContext(
  entry: SessionEntry,
  operation: SessionOperation,
  providerSessionId: string | undefined,
): SessionHookContext {
  return Object.freeze({
    ...entry.session,
    operation,
    ...(providerSessionId === undefined ? {} : { providerSessionId }),
    ...(entry.declared ? { declared: entry.declared } : {}),
    filesDir: entry.files.dir,
    drivenBy: entry.mode,
  });
}

/** Opens a daemon-driven session; on failure the caller drops the entry. */
export async function openDaemonSession(
  services: OpenServices,
  provider: AgentProvider,
  entry: SessionEntry,
  setup: SessionSetup,
  operation: SessionOperation,
  providerSessionId: string | undefined,
): Promise<LiveSession> {
  let state: unknown;
  let probe: AgentProbe | undefined = { httpMcp: provider.flags.httpMcp };
  entry.startSteps = {};
  const step = stepClock(entry.startSteps);
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
    if (handshake.declared) entry.declared = handshake.declared;
    probe =
      handshake.declared && provider.probeOf ? provider.probeOf(handshake.declared) : undefined;
    step('handshake');
  }
  const runtime = await services.prepare(entry, probe);
  step('prepare');
  const context = hookContext(entry, operation, providerSessionId);
  const params = await projectSession(services.hooks, provider, runtime, context);
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
  services: OpenServices,
  provider: AgentProvider,
  entry: SessionEntry,
  setup: SessionSetup,
  declared: Readonly<Record<string, unknown>> | undefined,
): Promise<{ runtime: PreparedRuntime; projection: PreparedProjection }> {
  let probe: AgentProbe | undefined = { httpMcp: provider.flags.httpMcp };
  const pre = (await provider.prelaunch?.(setup)) ?? {};
  if (provider.handshake) {
    if (!declared) {
      throw new TuttiError('TUTTI_ERR_SESSION_DECLARATION_NEEDED', { provider: provider.name });
    }
    entry.declared = declared;
    probe = provider.probeOf ? provider.probeOf(declared) : undefined;
  }
  const runtime = await services.prepare(entry, probe);
  const context = hookContext(entry, 'new', undefined);
  const params = await projectSession(services.hooks, provider, runtime, context);
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
  provider: AgentProvider,
  entry: SessionEntry,
  error: unknown,
): TuttiError {
  const ended = entry.agent?.exit;
  const fault =
    isTuttiError(error, 'TUTTI_ERR_PROVIDER_AGENT_EXITED') ||
    isTuttiError(error, 'TUTTI_ERR_PROVIDER_AGENT_MISBEHAVED') ||
    isTuttiError(error, 'TUTTI_ERR_PROVIDER_SPAWN_FAILED');
  if (ended && !ended.expected && !fault) {
    return new TuttiError(
      'TUTTI_ERR_PROVIDER_AGENT_EXITED',
      {
        provider: provider.name,
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
      provider: provider.name,
      session: entry.session.agentSessionId,
      reason: (error instanceof Error ? error.message : String(error)).replace(/\.\s*$/, ''),
      stderr: entry.agent ? stderrSentence(entry.agent.stderrLines()) : '',
    },
    { cause: error },
  );
}

/**
 * Runs a start within `ms`; past it the start fails with TUTTI_ERR_SESSION_START_TIMEOUT
 * and the agent's last stderr lines (the caller stops the agent).
 */
export async function withinStartTimeout<T>(
  entry: SessionEntry,
  provider: string,
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
          session: entry.session.agentSessionId,
          ms,
          stderr: stderrSentence(entry.agent?.stderrLines() ?? []),
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
