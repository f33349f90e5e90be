/**
 * Endpoints of the control API (documented in docs/control-api.md): connectors, their
 * credentials, the registry debug view and metrics (sessions: `session-endpoints.ts`).
 * Every change is the store's, then a reconcile of that one connector, whose outcome is
 * the answer: a 2xx means the runtime already acted on it, and a slow upstream of another
 * connector holds up nothing.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { TuttiError } from '../errors/index.js';
import type { OAuthClients } from '../oauth/types.js';
import type { ConnectorMCPRegistry } from '../registry/index.js';
import type { ConnectorRuntime } from '../runtime/index.js';
import type { ConnectorSandbox } from '../sandbox/index.js';
import {
  type ConnectorStore,
  checkSecret,
  createSecret,
  type InstalledConnector,
} from '../store/index.js';
import { absolutePath } from './body-fields.js';
import { parseBody } from './control-app.js';
import type { Metrics } from './metrics.js';

/** What the endpoints act on. */
export interface ControlContext {
  readonly store: ConnectorStore;
  readonly registry: ConnectorMCPRegistry;
  readonly runtime: ConnectorRuntime;
  readonly metrics: Metrics;
  /** The daemon as the OAuth client of remote connectors: an uninstall revokes their grants. */
  readonly oauth?: Pick<OAuthClients, 'forget'>;
  /** Isolation of stdio servers: what each asked for, and its state folder (removed at uninstall). */
  readonly sandbox?: Pick<
    ConnectorSandbox,
    'view' | 'forget' | 'mode' | 'platform' | 'unavailable'
  >;
}

const installBody = z.object({
  path: absolutePath,
  /** Wait for the connector's start, however long it takes (default: at most 2 s). */
  wait: z.boolean().optional(),
});

/** Longest an install answer waits for the connector's start unless asked to wait. */
const INSTALL_ANSWER_MS = 2_000;
const credentialBody = z.union([
  z.object({ secret: z.string().min(1).max(16_384) }).strict(),
  /** The secret of the OAuth client a manifest names (`auth.clientId`), kept for its sign-ins. */
  z.object({ clientSecret: z.string().min(1).max(16_384) }).strict(),
]);
function keyParam(params: unknown): string {
  return (params as { key: string }).key;
}

/** What `promise` resolves to within `ms`, else undefined (it runs on regardless). */
async function within<T>(promise: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), ms);
  });
  try {
    return await Promise.race([promise, late]);
  } finally {
    clearTimeout(timer);
  }
}

/** How `connector`'s stdio server runs (docs/sandbox.md), when it has one. */
function sandboxOf(ctx: ControlContext, connector: InstalledConnector) {
  const view = ctx.sandbox?.view(connector);
  return view ? { sandbox: view } : {};
}

/** Where `key`'s secrets are kept, when it has any (a key, a token, a sign-in's grant). */
function credentialStoreOf(store: ConnectorStore, key: string) {
  const where = store.credentialStore(key);
  return where ? { credentialStore: where } : {};
}

/** Adds every endpoint to `app`. */
export function registerControlEndpoints(app: FastifyInstance, ctx: ControlContext): void {
  const { store, runtime } = ctx;
  /** Reconciles `key` alone and answers its outcome. */
  const reconcile = async (key: string) => (await runtime.reconcile([key]))[0]!;

  app.get('/v1/connectors', async () => {
    const statuses = new Map(runtime.status().map((status) => [status.key, status]));
    const connectors = await Promise.all(
      store.installed().map(async (connector) => {
        const status = statuses.get(connector.key);
        return {
          key: connector.key,
          name: connector.manifest.name,
          version: connector.manifest.version,
          revision: connector.revision,
          ...(status?.running && { running: status.running }),
          ...(status?.pending && { pending: status.pending }),
          authKind: connector.manifest.auth.kind,
          authReady: await runtime.authReady(connector.key),
          ...credentialStoreOf(store, connector.key),
          ...sandboxOf(ctx, connector),
          runtime: status ?? null,
        };
      }),
    );
    const sandbox = ctx.sandbox && {
      mode: ctx.sandbox.mode,
      ...(ctx.sandbox.platform && { platform: ctx.sandbox.platform }),
      ...(ctx.sandbox.unavailable && { unavailable: ctx.sandbox.unavailable }),
    };
    return { connectors, ...(sandbox && { sandbox }) };
  });

  app.get('/v1/connectors/available', async () => ({
    connectors: runtime.available(),
  }));

  app.post('/v1/connectors/install', async (request) => {
    const { path, wait } = parseBody(installBody, request.body);
    const installed = await store.install(path);
    // The release is stored and its start has begun; a slow start is answered `starting`.
    const reconciling = reconcile(installed.key);
    reconciling.catch((error: unknown) =>
      request.log.warn({ err: (error as Error)?.message }, 'reconciling an install failed'),
    );
    const outcome = wait ? await reconciling : await within(reconciling, INSTALL_ANSWER_MS);
    const status = outcome?.status ?? runtime.status().find((s) => s.key === installed.key) ?? null;
    const skipped = outcome?.skipped ?? (await runtime.skippedSkills(installed.key));
    return {
      key: installed.key,
      version: installed.manifest.version,
      revision: installed.revision,
      changed: installed.changed,
      ...sandboxOf(ctx, installed),
      runtime: status,
      skipped: skipped.map(({ path, code, message }) => ({ path, code, reason: message })),
    };
  });

  app.post('/v1/connectors/:key/rollback', async (request) => {
    const key = keyParam(request.params);
    if (!store.get(key)) throw new TuttiError('TUTTI_ERR_CONTROL_UNKNOWN_CONNECTOR', { key });
    const installed = await store.rollback(key);
    const outcome = await reconcile(key);
    return {
      key,
      version: installed.manifest.version,
      revision: installed.revision,
      changed: installed.changed,
      runtime: outcome.status,
    };
  });

  app.post('/v1/connectors/:key/retry', async (request) => {
    const key = keyParam(request.params);
    return { key, runtime: await runtime.retry(key) };
  });

  app.delete('/v1/connectors/:key', async (request) => {
    const key = keyParam(request.params);
    if (!store.get(key)) throw new TuttiError('TUTTI_ERR_CONTROL_UNKNOWN_CONNECTOR', { key });
    // Its sign-in is revoked at the server (when it can be) before the store forgets it.
    await ctx.oauth?.forget(key);
    const change = await store.uninstall(key);
    await reconcile(key);
    // Its server is stopped: what it kept goes with it.
    await ctx.sandbox?.forget(key);
    return change;
  });

  app.put('/v1/connectors/:key/credentials', async (request) => {
    const key = keyParam(request.params);
    const connector = store.get(key);
    if (!connector) throw new TuttiError('TUTTI_ERR_CONTROL_UNKNOWN_CONNECTOR', { key });
    if (connector.manifest.auth.kind === 'none') {
      throw new TuttiError('TUTTI_ERR_CONTROL_NO_CREDENTIAL_NEEDED', { key });
    }
    const body = parseBody(credentialBody, request.body);
    if ('clientSecret' in body) {
      const auth = connector.manifest.auth;
      if (auth.kind !== 'oauth2' || !auth.clientId) {
        throw new TuttiError('TUTTI_ERR_CONTROL_BAD_REQUEST', {
          field: 'clientSecret',
          problem: `connector "${key}" names no OAuth client (auth.clientId) in its manifest`,
        });
      }
      checkSecret(key, createSecret(body.clientSecret));
      await store.secrets.set(key, 'client_secret', createSecret(body.clientSecret));
      // Used by its next sign-in; nothing that runs changes.
      return {
        key,
        revision: connector.revision,
        changed: true,
        authReady: await runtime.authReady(key),
        runtime: runtime.status().find((status) => status.key === key) ?? null,
      };
    }
    const change = await store.setCredential(key, body.secret);
    const outcome = await reconcile(key);
    // What the runtime made of it: a refused key reads `failed` and why, not just authReady.
    return { ...change, authReady: await runtime.authReady(key), runtime: outcome.status };
  });

  app.delete('/v1/connectors/:key/credentials', async (request) => {
    const key = keyParam(request.params);
    if (!store.get(key)) throw new TuttiError('TUTTI_ERR_CONTROL_UNKNOWN_CONNECTOR', { key });
    const change = await store.clearCredential(key);
    const outcome = await reconcile(key);
    return { ...change, authReady: await runtime.authReady(key), runtime: outcome.status };
  });

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
