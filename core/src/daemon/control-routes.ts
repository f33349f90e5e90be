/**
 * Routes of the control API (documented in docs/control-api.md): connectors, their
 * credentials, agent sessions, the registry debug view and metrics. Every change to the
 * store is followed by a reconcile, so a 2xx answer means the runtime already acted on it.
 */
import { isAbsolute } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { TuttiError } from '../errors/index.js';
import { discoverSkills } from '../skills/index.js';
import type { ConnectorMCPRegistryApi } from '../registry/index.js';
import type { RouteRegistryApi } from '../routes/index.js';
import type { ConnectorRuntime } from '../runtime/index.js';
import type { AgentSessionHost } from '../session/index.js';
import type { ConnectorStore } from '../store/index.js';
import { availableConnectors } from './available.js';
import { parseBody } from './control-app.js';
import type { Metrics } from './metrics.js';

/** What the routes act on. */
export interface ControlContext {
  readonly store: ConnectorStore;
  readonly registry: ConnectorMCPRegistryApi;
  readonly routes: RouteRegistryApi;
  readonly runtime: ConnectorRuntime;
  readonly host: AgentSessionHost;
  readonly metrics: Metrics;
  /** Reconciles and refreshes the metrics. */
  reconcile(): Promise<void>;
}

const installBody = z.object({ path: z.string().min(1).refine(isAbsolute, 'must be absolute') });
const credentialBody = z.object({ secret: z.string().min(1).max(16_384) }).strict();
const env = z.record(z.string(), z.string());
const sessionBody = z
  .object({
    workspaceId: z.string().min(1).max(200),
    agentSessionId: z.string().min(1).max(200).optional(),
    cwd: z.string().min(1).refine(isAbsolute, 'must be absolute'),
    provider: z.string().min(1).max(100).optional(),
    env: env.optional(),
    launch: z
      .object({
        command: z.string().min(1).optional(),
        args: z.array(z.string()).optional(),
        env: env.optional(),
      })
      .strict()
      .optional(),
    load: z
      .object({ providerSessionId: z.string().min(1) })
      .strict()
      .optional(),
    resume: z
      .object({ providerSessionId: z.string().min(1) })
      .strict()
      .optional(),
  })
  .strict();

function keyParam(params: unknown): string {
  return (params as { key: string }).key;
}

/** Adds every route to `app`. */
export function registerControlRoutes(app: FastifyInstance, ctx: ControlContext): void {
  const { store, runtime, host } = ctx;

  app.get('/v1/connectors', async () => {
    const statuses = new Map(runtime.status().map((status) => [status.key, status]));
    const connectors = await Promise.all(
      store.installed().map(async (connector) => ({
        key: connector.key,
        name: connector.manifest.name,
        version: connector.manifest.version,
        revision: connector.revision,
        authKind: connector.manifest.auth.kind,
        authReady: await store.authReady(connector.key),
        runtime: statuses.get(connector.key) ?? null,
      })),
    );
    return { connectors };
  });

  app.get('/v1/connectors/available', async () => ({
    connectors: availableConnectors(ctx.routes, runtime.status()),
  }));

  app.post('/v1/connectors/install', async (request) => {
    const { path } = parseBody(installBody, request.body);
    const installed = await store.install(path);
    await ctx.reconcile();
    const { diagnostics } = await discoverSkills(installed.releaseDir, installed.manifest.skills);
    return {
      key: installed.key,
      version: installed.manifest.version,
      revision: installed.revision,
      changed: installed.changed,
      runtime: runtime.status().find((status) => status.key === installed.key) ?? null,
      skipped: diagnostics.map(({ path, code, message }) => ({ path, code, reason: message })),
    };
  });

  app.delete('/v1/connectors/:key', async (request) => {
    const key = keyParam(request.params);
    if (!store.get(key)) throw new TuttiError('TUTTI_ERR_CONTROL_UNKNOWN_CONNECTOR', { key });
    const change = await store.uninstall(key);
    await ctx.reconcile();
    return change;
  });

  app.put('/v1/connectors/:key/credentials', async (request) => {
    const key = keyParam(request.params);
    const connector = store.get(key);
    if (!connector) throw new TuttiError('TUTTI_ERR_CONTROL_UNKNOWN_CONNECTOR', { key });
    if (connector.manifest.auth.kind === 'none') {
      throw new TuttiError('TUTTI_ERR_CONTROL_NO_CREDENTIAL_NEEDED', { key });
    }
    const { secret } = parseBody(credentialBody, request.body);
    const change = await store.setCredential(key, secret);
    await ctx.reconcile();
    return { ...change, authReady: await store.authReady(key) };
  });

  app.delete('/v1/connectors/:key/credentials', async (request) => {
    const key = keyParam(request.params);
    if (!store.get(key)) throw new TuttiError('TUTTI_ERR_CONTROL_UNKNOWN_CONNECTOR', { key });
    const change = await store.clearCredential(key);
    await ctx.reconcile();
    return { ...change, authReady: await store.authReady(key) };
  });

  app.post('/v1/sessions', async (request) => {
    const body = parseBody(sessionBody, request.body);
    const base = {
      workspaceId: body.workspaceId,
      cwd: body.cwd,
      ...(body.env && { env: body.env }),
      ...(body.agentSessionId && { agentSessionId: body.agentSessionId }),
    };
    if (!body.provider) {
      const prepared = await host.prepareOnly({
        ...base,
        provider: 'external',
        capabilities: { httpMcp: true },
      });
      return { session: sessionInfo(host, prepared.agentSessionId), runtime: prepared.runtime };
    }
    const request_ = {
      ...base,
      provider: body.provider,
      ...(body.launch && { launch: body.launch }),
    };
    const info = body.load
      ? await host.loadSession(request_, body.load.providerSessionId)
      : body.resume
        ? await host.resumeSession(request_, body.resume.providerSessionId)
        : await host.createSession(request_);
    return { session: info };
  });

  app.get('/v1/sessions', async () => ({ sessions: host.listSessions() }));

  app.delete('/v1/sessions/:id', async (request) => {
    const id = (request.params as { id: string }).id;
    await host.closeSession(id);
    return { closed: id };
  });

  app.get('/v1/providers', async () => ({ providers: host.listProviders() }));

  app.get('/debug/registry', async () => ({
    registry: ctx.registry.debugSnapshot(),
    connectors: runtime.status(),
    events: runtime.events(),
  }));

  app.get('/metrics', async (_request, reply) => {
    reply.type('text/plain; version=0.0.4');
    return ctx.metrics.render();
  });
}

function sessionInfo(host: AgentSessionHost, id: string) {
  return host.listSessions().find((session) => session.id === id) ?? { id };
}
