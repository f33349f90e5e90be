/**
 * Agent-session endpoints of the control API (docs/control-api.md): start, load or resume a
 * daemon-driven session; prepare a host-driven one (provider-neutral, or one provider's
 * projection); list, fetch a projection, close; list providers.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { type AgentSessionHost, permissionModeSchema } from '../session/index.js';
import { absolutePath, checkFolder, environment as env, systemText } from './body-fields.js';
import { parseBody } from './control-app.js';

const providerSessionId = z.object({ providerSessionId: z.string().min(1) }).strict();
const sessionBody = z
  .object({
    workspaceId: z.string().min(1).max(200),
    agentSessionId: z.string().min(1).max(200).optional(),
    cwd: absolutePath,
    provider: z.string().min(1).max(100).optional(),
    /** `drive` (default): the daemon runs the agent; `prepare`: the host does. */
    mode: z.enum(['drive', 'prepare']).optional(),
    env: env.optional(),
    launch: z
      .object({
        command: systemText.min(1).optional(),
        args: z.array(systemText).optional(),
        env: env.optional(),
      })
      .strict()
      .optional(),
    agentCapabilities: z.record(z.string(), z.unknown()).optional(),
    /** What the agent's tools may do without asking in turns through the daemon. */
    permissions: permissionModeSchema.optional(),
    /** Settings of the provider to turn on (named in its descriptor, e.g. trusting the folder). */
    settings: z.array(z.string().min(1).max(100)).max(20).optional(),
    load: providerSessionId.optional(),
    resume: providerSessionId.optional(),
  })
  .strict()
  .refine((body) => !(body.load && body.resume), { message: 'give load or resume, not both' })
  .refine((body) => body.provider || !body.mode, {
    message: 'mode needs a provider',
    path: ['mode'],
  })
  .refine((body) => body.mode !== 'prepare' || (!body.launch && !body.load && !body.resume), {
    message: 'a prepared session is started by its host: no launch, load or resume',
    path: ['mode'],
  });

function idParam(params: unknown): string {
  return (params as { id: string }).id;
}

/** Adds the session endpoints to `app`. */
export function registerSessionEndpoints(app: FastifyInstance, host: AgentSessionHost): void {
  const infoOf = (id: string) => host.findSession(id)?.info() ?? { id };

  app.post('/v1/sessions', async (request) => {
    const body = parseBody(sessionBody, request.body);
    const base = {
      workspaceId: body.workspaceId,
      cwd: body.cwd,
      ...(body.env && { env: body.env }),
      ...(body.agentSessionId && { agentSessionId: body.agentSessionId }),
      ...(body.permissions && { permissions: body.permissions }),
      ...(body.settings && { settings: body.settings }),
    };
    if (!body.provider) {
      const prepared = await host.prepareOnly({
        ...base,
        provider: 'external',
        flags: { httpMcp: true, listChanged: false },
      });
      return { session: infoOf(prepared.agentSessionId), runtime: prepared.runtime };
    }
    if (body.mode === 'prepare') {
      const prepared = await host.prepareSession({
        ...base,
        provider: body.provider,
        ...(body.agentCapabilities && { agentCapabilities: body.agentCapabilities }),
      });
      return {
        session: infoOf(prepared.agentSessionId),
        runtime: prepared.runtime,
        projection: prepared.projection,
      };
    }
    // The daemon starts this agent in `cwd`: a missing folder would read as a missing command.
    await checkFolder('cwd', body.cwd);
    const start = { ...base, provider: body.provider, ...(body.launch && { launch: body.launch }) };
    const info = body.load
      ? await host.loadSession(start, body.load.providerSessionId)
      : body.resume
        ? await host.resumeSession(start, body.resume.providerSessionId)
        : await host.createSession(start);
    return { session: info };
  });

  app.get('/v1/sessions', async () => ({
    sessions: host.listSessions(),
    restoring: host.restoring,
  }));

  app.patch('/v1/sessions/:id', async (request) => {
    const { providerSessionId: id } = parseBody(providerSessionId, request.body);
    return { session: host.session(idParam(request.params)).identify(id) };
  });

  app.get('/v1/sessions/:id/projection', async (request) => ({
    projection: host.session(idParam(request.params)).projection(),
  }));

  app.post('/v1/sessions/:id/restart', async (request) => {
    const { restartedAs, ...session } = await host.session(idParam(request.params)).restart();
    return { session, restartedAs };
  });

  app.delete('/v1/sessions/:id', async (request) => {
    const id = idParam(request.params);
    await host.closeSession(id);
    return { closed: id };
  });

  app.get('/v1/providers', async () => ({ providers: host.listProviders() }));
}
