/**
 * The composition root of `tuttid`: store, registry, loopback `connector` server, connector
 * runtime, agent session host with its discovered provider plugins, and the control API.
 * Nothing here holds logic of its own beyond wiring and the order of start and stop.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { pino } from 'pino';
import { createAgentInstaller } from '../agents/index.js';
import { createTokenService, type TokenService } from '../auth/index.js';
import { type Dashboard, registerDashboard } from '../dashboard/index.js';
import { TuttiError } from '../errors/index.js';
import { createEventHub, type EventHub } from '../events/index.js';
import { renderGuidance } from '../guidance/index.js';
import { discoverAndLoadPlugins, type PluginLoadResult } from '../plugins/index.js';
import {
  createProcessSupervisor,
  type ProcessSupervisor,
  createSecretRedactor,
} from '../process/index.js';
import { createConnectorMCPRegistry } from '../registry/index.js';
import { createConnectorCatalog } from '../catalog/index.js';
import {
  createConnectorRuntime,
  type ConnectorRuntime,
  type ConnectorStatus,
} from '../runtime/index.js';
import { type ConnectorSandbox, openConnectorSandbox } from '../sandbox/index.js';
import { createConnectorServer } from '../server/index.js';
import { AgentSessionHost, currentSessionId, sessionRecords } from '../session/index.js';
import { type ConnectorStore, migrateHome } from '../store/index.js';
import { buildControlApp } from './control-app.js';
import { registerControlEndpoints } from './control-endpoints.js';
import { openDaemonStore } from './daemon-store.js';
import { registerSignInEndpoints } from './sign-in-endpoints.js';
import { createDaemonOAuth } from './daemon-oauth.js';
import { registerEventsEndpoint } from './events-endpoint.js';
import { registerSessionEndpoints } from './session-endpoints.js';
import { registerTurnEndpoints } from './turn-endpoints.js';
import {
  type DaemonInfo,
  removeDaemonFile,
  runningDaemonPid,
  writeDaemonFile,
} from './daemon-file.js';
import { acquireHomeLock } from './home-lock.js';
import { restorePreviousSessions } from './restore-sessions.js';
import { agentInUse, registerAgentEndpoints } from './agent-endpoints.js';
import { registerAuditEndpoint } from './audit-endpoint.js';
import { createCallRecorder } from './call-recorder.js';
import { openObservers } from './daemon-observe.js';
import type { DaemonOptions } from './daemon-options.js';
import { METRIC_NAMES, createMetrics } from './metrics.js';

export type { DaemonOptions } from './daemon-options.js';

/** A running daemon. */
export interface Daemon {
  readonly home: string;
  readonly info: DaemonInfo;
  /**
   * Resolves once every connector installed at start made its first attempt (is ready,
   * failed, or waits for a credential), with the status each reached then (sorted by key).
   * The daemon serves long before: it is ready when its servers listen.
   */
  readonly settled: Promise<readonly ConnectorStatus[]>;
  /** URL of the loopback `connector` MCP server. */
  readonly mcpUrl: string;
  readonly plugins: readonly PluginLoadResult[];
  readonly store: ConnectorStore;
  readonly runtime: ConnectorRuntime;
  /** Isolation of connector stdio servers, probed at start. */
  readonly sandbox: ConnectorSandbox;
  readonly supervisor: ProcessSupervisor;
  readonly sessions: AgentSessionHost;
  readonly events: EventHub;
  /** The local web dashboard on the control port (docs/dashboard.md): its login links. */
  readonly dashboard: Dashboard;
  /**
   * The last line of defence against an error nobody handled: when it escaped the code of
   * an agent session, that session is ended and true is returned (the daemon stays up).
   */
  absorbEscapedError(error: unknown): boolean;
  /** The agent sessions' bearer tokens (every one is revoked when the daemon closes). */
  readonly tokens: TokenService;
  /**
   * Resolves once the sessions recorded by the previous daemon were brought back (or listed
   * as needing a restart); that starts once the connectors settled ({@link settled}).
   */
  readonly restored: Promise<void>;
  /** Stops everything in order; idempotent. */
  close(): Promise<void>;
}

/**
 * Starts the daemon; resolves once its servers listen and `run/daemon.json` is written.
 * The installed connectors start in the background ({@link Daemon.settled}).
 */
export async function startDaemon(options: DaemonOptions): Promise<Daemon> {
  const { home } = options;
  const logger = options.logger ?? pino({ level: 'silent' });
  await mkdir(home, { recursive: true, mode: 0o700 });
  await chmod(home, 0o700);
  // Before anything else touches the home: a second daemon stops here, at once.
  const lock = acquireHomeLock(home);
  if (!lock.held) {
    logger.warn({ home }, 'flock is not available here: only the daemon file guards the home');
    const other = await runningDaemonPid(home);
    if (other !== undefined)
      throw new TuttiError('TUTTI_ERR_DAEMON_ALREADY_RUNNING', { pid: other, home });
  }

  const supervisor = createProcessSupervisor();
  // Run in reverse: the lock is released last, once nothing of this daemon is left.
  const cleanups: (() => Promise<unknown>)[] = [
    async () => lock.release(),
    () => supervisor.close(),
  ];
  let closing = false;
  const closeAll = async () => {
    closing = true;
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
  };
  try {
    // Under the lock and before anything reads the home: its layout becomes this daemon's.
    const layout = await migrateHome(home, {
      onStep: (step) =>
        logger.info({ home, from: step.from, to: step.to }, `migrating the home: ${step.summary}`),
    });
    if (layout.from !== layout.to) logger.info({ home, ...layout }, 'migrated the home');
    const store = await openDaemonStore(home, options, logger);
    const sandbox = await openConnectorSandbox({
      mode: options.sandbox ?? 'off',
      home,
      logger,
    });
    const registry = createConnectorMCPRegistry();
    const catalog = createConnectorCatalog();
    const tokens = createTokenService();
    cleanups.push(async () => tokens.revokeAll());
    const events = createEventHub();
    cleanups.push(async () => events.close());
    const redactor = createSecretRedactor();
    // Closed after the connector server (cleanups run in reverse): its last calls are kept.
    const { tracer, audit } = await openObservers(
      home,
      options,
      logger,
      // The daemon's secrets, then every connector's (captured values only).
      (text) => {
        const masked = redactor.redact(text);
        return runtimeOf?.().redactSecrets(masked) ?? masked;
      },
      (close) => cleanups.push(close),
    );
    const records = sessionRecords(join(home, 'sessions', 'records'));
    // Gauges are read when /metrics is asked: they are never stale.
    const metrics = createMetrics((m) => {
      const debug = registry.debugSnapshot();
      m.set(METRIC_NAMES.routes, debug.routes.length);
      m.set(METRIC_NAMES.tools, debug.toolCount);
      m.set(METRIC_NAMES.sessions, host?.listSessions().length ?? 0);
    });
    const binDir = join(home, 'bin');
    // Set below; the server answers no agent before a session exists.
    let host: AgentSessionHost | undefined;
    const server = await createConnectorServer({
      registry,
      tokens,
      logger,
      port: options.port ?? 0,
      onAnswered: (session, method, status) => {
        if (method !== 'tools/list' || status !== 200) return;
        const { version, tools } = registry.snapshot();
        host
          ?.findSession(session.agentSessionId)
          ?.noteToolsListed({ version, toolCount: tools.length, at: Date.now() }, tools);
      },
      ...(options.keepAliveMs !== undefined && { keepAliveMs: options.keepAliveMs }),
      ...(options.mcpBodyLimit !== undefined && { bodyLimit: options.mcpBodyLimit }),
      ...(options.maxListenStreamsPerToken !== undefined && {
        maxListenStreamsPerToken: options.maxListenStreamsPerToken,
      }),
      ...(options.maxArgumentDepth !== undefined && { maxArgumentDepth: options.maxArgumentDepth }),
      // One wait for the agent's answer on both surfaces: a 2025 stream, a parked call.
      ...(options.elicitationTimeoutMs !== undefined && {
        elicitationTimeoutMs: options.elicitationTimeoutMs,
        parkedCallTtlMs: options.elicitationTimeoutMs,
      }),
      ...(options.maxParkedCalls !== undefined && { maxParkedCalls: options.maxParkedCalls }),
      ...(options.maxParkedCallsPerToken !== undefined && {
        maxParkedCallsPerToken: options.maxParkedCallsPerToken,
      }),
      observer: createCallRecorder({
        tracer,
        ...(audit && { audit }),
        ...(options.audit?.captureValues && { captureValues: true }),
        sessions: {
          providerOf: (id) => host?.findSession(id)?.context.provider,
          toolCallParent: (id, tool) => host?.toolCallParent(id, tool),
        },
        ...(options.tracing?.baggage && { baggage: true }),
      }),
    });
    cleanups.push(() => server.close());
    // The control port is known once it listens; a sign-in begins only after that.
    let controlPort = 0;
    let runtimeOf: (() => ConnectorRuntime) | undefined;
    const oauth = createDaemonOAuth({
      home,
      store,
      controlPort: () => controlPort,
      runtime: () => runtimeOf?.(),
      clientMetadataUrl: options.oauthClientMetadataUrl,
      logger,
      redactor,
    });
    cleanups.push(async () => oauth.close());
    const runtime = createConnectorRuntime({
      oauth,
      sandbox,
      store,
      registry,
      catalog,
      binDir,
      logger,
      supervisor,
      events,
      startTimeoutMs: options.startTimeoutMs,
      ...(options.backoff && { backoff: options.backoff }),
      ...(options.parkAfter !== undefined && { parkAfter: options.parkAfter }),
      counters: {
        call: (key) => metrics.inc(METRIC_NAMES.calls, { connector: key }),
        error: (key) => metrics.inc(METRIC_NAMES.callErrors, { connector: key }),
        toolError: (key) => metrics.inc(METRIC_NAMES.toolErrors, { connector: key }),
        restart: (key) => metrics.inc(METRIC_NAMES.upstreamRestarts, { connector: key }),
        crash: (key) => metrics.inc(METRIC_NAMES.upstreamCrashes, { connector: key }),
      },
    });
    cleanups.push(() => runtime.close());
    runtimeOf = () => runtime;
    host = new AgentSessionHost({
      connector: {
        endpointUrl: () => server.url,
        shimBinDir: () => binDir,
        skillRoots: () => runtime.skillRoots(),
      },
      tokens,
      registry,
      elicitations: server.elicitations,
      listChangedDelivered: true,
      processes: supervisor,
      sessionsDir: join(home, 'sessions'),
      records,
      ...(options.agentTimeoutMs !== undefined && { agentTimeoutMs: options.agentTimeoutMs }),
      ...(options.maxSessions !== undefined && { maxSessions: options.maxSessions }),
      ...(options.permissionTimeoutMs !== undefined && {
        permissionTimeoutMs: options.permissionTimeoutMs,
      }),
      events,
      redactor,
      tracer,
      onProblem: (session, message) =>
        logger.warn({ session: session.agentSessionId, provider: session.provider }, message),
      guidance: () => renderGuidance(runtime.available()) || undefined,
    });
    // A shutdown keeps what daemon-driven sessions need to come back at the next start.
    cleanups.push(() => host.suspend());
    // Agents installed from the ACP registry or a signed extension, in <home>/agents.
    const agents = createAgentInstaller({
      home,
      ...(options.agentRegistry !== undefined && { registryIndex: options.agentRegistry }),
      logger: logger.child({ component: 'agents' }),
      env: process.env,
      inUse: (id) => (host ? agentInUse(host, id) : undefined),
    });
    // Plugins load while the connectors start: neither waits for the other.
    const loadingPlugins = discoverAndLoadPlugins(host, {
      logger: logger.child({ component: 'plugins' }),
      installedAgents: agents.feed,
      ...(options.repoRoot && { repoRoot: options.repoRoot }),
      ...(options.nodeModules && { nodeModules: options.nodeModules }),
      home,
      ...(options.pluginMode && { mode: options.pluginMode }),
    });
    // Connectors come up in the background: the daemon is ready once its servers listen,
    // and a slow upstream holds up nothing but itself (its state reads `starting`).
    const settled = runtime.reconcile().then(
      (outcomes) => outcomes.flatMap((outcome) => (outcome.status ? [outcome.status] : [])),
      (error: unknown): ConnectorStatus[] => {
        logger.error(
          { err: (error as Error)?.message },
          'the first reconcile of the connectors failed',
        );
        return [];
      },
    );
    const plugins = await loadingPlugins;
    for (const plugin of plugins) {
      if (plugin.status === 'failed') {
        logger.warn({ plugin: plugin.origin, code: plugin.error?.code }, plugin.error?.message);
      }
    }

    const controlToken = randomBytes(32).toString('base64url');
    redactor.add(controlToken);
    const app = buildControlApp({
      controlToken,
      port: () => controlPort,
      logger,
      ...(options.controlBodyLimit !== undefined && { bodyLimit: options.controlBodyLimit }),
    });
    registerControlEndpoints(app, { store, registry, runtime, metrics, oauth, sandbox });
    registerSignInEndpoints(app, { store, runtime, oauth });
    registerSessionEndpoints(app, host);
    registerAgentEndpoints(app, agents, host);
    registerTurnEndpoints(app, host);
    registerEventsEndpoint(app, events);
    registerAuditEndpoint(app, audit);
    const dashboard = registerDashboard(app, {
      controlToken,
      port: () => controlPort,
      registry,
      runtime,
      events,
    });
    await app.listen({ host: '127.0.0.1', port: options.controlPort ?? 0 });
    cleanups.push(async () => {
      // An event stream is a request that never ends by itself: end the streams first, or
      // closing the app waits on the hosts that follow them (a stop hung until they left).
      events.close();
      await app.close();
    });
    const address = app.server.address();
    controlPort = typeof address === 'object' && address ? address.port : 0;
    const info: DaemonInfo = {
      pid: process.pid,
      controlUrl: `http://127.0.0.1:${controlPort}`,
      controlToken,
    };
    await writeDaemonFile(home, info);
    cleanups.push(() => removeDaemonFile(home, process.pid));
    // Called before anything below can yield: restoreSessions counts as restoring at once.
    const restored = restorePreviousSessions({
      host,
      records,
      settled,
      closing: () => closing,
      logger,
    });
    return {
      home,
      info,
      settled,
      mcpUrl: server.url,
      plugins,
      store,
      runtime,
      sandbox,
      supervisor,
      sessions: host,
      events,
      dashboard,
      restored,
      absorbEscapedError(error) {
        const session = currentSessionId();
        if (session === undefined || !host) return false;
        logger.error(
          { session, err: { message: (error as Error)?.message, stack: (error as Error)?.stack } },
          'an error escaped the code of an agent session: the session is ended, the daemon stays up',
        );
        void host.findSession(session)?.fail(error);
        return true;
      },
      tokens,
      close: closeAll,
    };
  } catch (error) {
    await closeAll();
    throw error;
  }
}
