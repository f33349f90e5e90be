/**
 * The daemon's agent installer: one install or removal per agent at a time, each staged in
 * `<home>/agents/<id>/.staging-<random>/` and committed only when every check passed and
 * every feed listener accepted it, and no session of an installed agent runs (`inUse`, asked
 * again right before the commit and the removal). A refusal leaves nothing behind: the
 * staging folder goes, and so does the agent's folder when the install made it.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { InstalledAgent, InstalledAgentsChange } from '../contracts/installed-agents.js';
import { TuttiError } from '../errors/index.js';
import { readRecord, readRecords, sizeOnDisk } from './agent-records.js';
import { commitInstall } from './commit-install.js';
import { platformKey } from './distribution.js';
import { planInstall } from './install-request.js';
import { AGENT_ID } from './registry-entry.js';
import { idOfPlan, stageInstall } from './stage-install.js';
import type {
  AgentInstaller,
  AgentInstallerOptions,
  AgentInstallRequest,
  AgentListing,
} from './types.js';

type Listener = (change: InstalledAgentsChange) => void | Promise<void>;

/**
 * Makes the installer of `<home>/agents/`.
 * @example const installer = createAgentInstaller({ home, registryIndex, logger, env });
 */
export function createAgentInstaller(options: AgentInstallerOptions): AgentInstaller {
  const agentsDir = join(options.home, 'agents');
  const platform = options.platform ?? platformKey();
  const env = options.env ?? process.env;
  const listeners = new Set<Listener>();
  const busy = new Set<string>();
  const warn = (fields: Record<string, unknown>, message: string) =>
    options.logger?.warn(fields, message);

  const notify = async (change: InstalledAgentsChange) => {
    for (const listener of [...listeners]) await listener(change);
  };

  const records = () =>
    readRecords(agentsDir, (id, problem) =>
      warn({ agent: id, problem }, 'agent install: a record cannot be read; skipped'),
    );

  /** Throws the `inUse` refusal of `id`, if any. */
  const refuseInUse = (id: string) => {
    const refusal = options.inUse?.(id);
    if (refusal) throw refusal;
  };

  async function exclusively<T>(id: string, work: () => Promise<T>): Promise<T> {
    if (busy.has(id)) throw new TuttiError('TUTTI_ERR_AGENT_BUSY', { id });
    busy.add(id);
    try {
      return await work();
    } finally {
      busy.delete(id);
    }
  }

  /**
   * Sizes on disk by agent, for the install they were measured of: an install's files change
   * only through this installer, and walking a big runtime (hundreds of MB) on every listing
   * (the dashboard's view refreshes) is work done again for nothing.
   */
  const sizes = new Map<string, { readonly installedAt: string; readonly bytes: number }>();
  async function sizeOf(record: InstalledAgent): Promise<number> {
    const known = sizes.get(record.id);
    if (known?.installedAt === record.installedAt) return known.bytes;
    const bytes = await sizeOnDisk(join(agentsDir, record.id));
    sizes.set(record.id, { installedAt: record.installedAt, bytes });
    return bytes;
  }

  async function install(request: AgentInstallRequest): Promise<InstalledAgent> {
    const plan = await planInstall(request, options.registryIndex);
    const id = idOfPlan(plan);
    return exclusively(id, async () => {
      const agentDir = join(agentsDir, id);
      const existed = await stat(agentDir).then(
        () => true,
        () => false,
      );
      const staging = join(agentDir, `.staging-${randomBytes(6).toString('hex')}`);
      try {
        await mkdir(staging, { recursive: true, mode: 0o700 });
        const previous = await readRecord(agentDir, id).catch(() => undefined);
        const staged = await stageInstall(plan, staging, platform, env);
        // Sessions may have started while it was staged: their files stay as they are.
        if (previous) refuseInUse(id);
        const record = await commitInstall(agentDir, staging, staged, previous, notify, warn);
        options.logger?.info(
          { agent: id, version: record.version, source: record.source },
          'agent installed',
        );
        return record;
      } catch (error) {
        if (!existed) await rm(agentDir, { recursive: true, force: true });
        throw error;
      } finally {
        await rm(staging, { recursive: true, force: true });
        // A listing during the install may have measured its staging too.
        sizes.delete(id);
      }
    });
  }

  async function remove(id: string): Promise<void> {
    if (!AGENT_ID.test(id))
      throw new TuttiError('TUTTI_ERR_AGENT_NOT_INSTALLED', { id: id.slice(0, 64) });
    await exclusively(id, async () => {
      const agentDir = join(agentsDir, id);
      const record = await readRecord(agentDir, id).catch(() => undefined);
      if (!record) throw new TuttiError('TUTTI_ERR_AGENT_NOT_INSTALLED', { id });
      refuseInUse(id);
      try {
        await notify({ kind: 'removed', id });
      } catch (error) {
        await notify({ kind: 'installed', agent: record }).catch((undoError: Error) =>
          warn(
            { agent: id, error: undoError.message },
            'agent removal: a listener refused the undo',
          ),
        );
        throw error;
      }
      await rm(agentDir, { recursive: true, force: true });
      sizes.delete(id);
      options.logger?.info({ agent: id }, 'agent removed');
    });
  }

  async function list(): Promise<AgentListing[]> {
    const listings: AgentListing[] = [];
    for (const record of await records()) {
      listings.push({
        id: record.id,
        name: record.name,
        ...(record.description ? { description: record.description } : {}),
        version: record.version,
        source: record.source,
        ...(record.extension
          ? {
              extension: {
                version: record.extension.version,
                agent: record.id,
                files: record.extension.files,
              },
            }
          : {}),
        sizeBytes: await sizeOf(record),
        installedAt: record.installedAt,
      });
    }
    return listings;
  }

  return {
    feed: {
      list: records,
      subscribe(listener) {
        listeners.add(listener);
        return () => {
          listeners.delete(listener);
        };
      },
    },
    install,
    list,
    remove,
  };
}
