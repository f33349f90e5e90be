/**
 * Installed-agent endpoints of the control API (docs/control-api.md, "Agents"): install an
 * ACP agent from a registry entry, a registry id or a signed extension; list the installed
 * ones with whether a provider of their id is registered; remove one. An agent whose
 * sessions run is neither removed nor replaced: its files would vanish under the running
 * process (refused here first, and by the installer again right before it commits). An install answers once it is done, however long npm or a download takes (the
 * control app sets no request timeout).
 */
import type { FastifyInstance } from 'fastify';
import type { AgentInstaller, AgentInstallRequest, AgentListing } from '../agents/types.js';
import { TuttiError } from '../errors/index.js';
import type { AgentSessionHost, AgentSessionStatus } from '../session/index.js';

/** What the endpoints read of the session host. */
export type AgentEndpointsHost = Pick<AgentSessionHost, 'listProviders' | 'listSessions'>;

/** One row of `GET /v1/agents`: the installer's listing and whether sessions can use it. */
export type AgentRow = AgentListing & {
  readonly provider: { readonly registered: boolean; readonly problem?: string };
};

/** Session states whose agent process runs (or a host runs it from a projection). */
const LIVE: ReadonlySet<AgentSessionStatus> = new Set(['starting', 'ready', 'prepared']);

/**
 * TUTTI_ERR_AGENT_IN_USE while sessions of agent `id` run, else undefined: the endpoints ask
 * it first (a fast refusal), the installer again right before it commits or removes.
 */
export function agentInUse(
  host: Pick<AgentSessionHost, 'listSessions'>,
  id: string,
): TuttiError | undefined {
  const live = host
    .listSessions()
    .filter((session) => session.provider === id && LIVE.has(session.status));
  if (live.length === 0) return undefined;
  return new TuttiError('TUTTI_ERR_AGENT_IN_USE', {
    id,
    count: live.length,
    session: live[0]!.id,
  });
}

/**
 * The agent id an install body names, when it names one plainly (`id`, `entry.id`,
 * `extension.agent`); the installer checks the body itself.
 */
function requestedId(body: unknown): string | undefined {
  const { id, entry, extension } = (body ?? {}) as Record<string, unknown>;
  const named =
    id ??
    (entry as { id?: unknown } | null)?.id ??
    (extension as { agent?: unknown } | null)?.agent;
  return typeof named === 'string' ? named : undefined;
}

/** Adds the agent endpoints to `app`. */
export function registerAgentEndpoints(
  app: FastifyInstance,
  installer: AgentInstaller,
  host: AgentEndpointsHost,
): void {
  const rowOf = (listing: AgentListing): AgentRow => {
    const registered = host.listProviders().some((provider) => provider.name === listing.id);
    const { sizeBytes, installedAt, ...rest } = listing;
    return {
      ...rest,
      provider: registered
        ? { registered }
        : {
            registered,
            problem:
              'no provider of this id is registered: the daemon log says why (TUTTI_ERR_PLUGIN_BAD_DESCRIPTOR)',
          },
      sizeBytes,
      installedAt,
    };
  };

  /** Whether `id` is installed (its record, without walking its files for a size). */
  const isInstalled = async (id: string) =>
    (await installer.feed.list()).some((agent) => agent.id === id);

  /** Refuses a change of `id` while sessions of it run. */
  const refuseInUse = (id: string) => {
    const refusal = agentInUse(host, id);
    if (refusal) throw refusal;
  };

  app.post('/v1/agents/install', async (request) => {
    const named = requestedId(request.body);
    if (named !== undefined && (await isInstalled(named))) refuseInUse(named);
    // The installer checks the body (TUTTI_ERR_AGENT_BAD_REQUEST naming the field).
    const installed = await installer.install((request.body ?? {}) as AgentInstallRequest);
    const listing = (await installer.list()).find((agent) => agent.id === installed.id);
    if (!listing) throw new TuttiError('TUTTI_ERR_AGENT_NOT_INSTALLED', { id: installed.id });
    return { agent: rowOf(listing) };
  });

  app.get('/v1/agents', async () => ({
    agents: (await installer.list()).map(rowOf),
  }));

  app.delete('/v1/agents/:id', async (request) => {
    const { id } = request.params as { id: string };
    if (!(await isInstalled(id))) {
      throw new TuttiError('TUTTI_ERR_AGENT_NOT_INSTALLED', { id: id.slice(0, 100) });
    }
    refuseInUse(id);
    await installer.remove(id);
    return { removed: true };
  });
}
