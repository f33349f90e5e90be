/**
 * @tutti/agent-descriptors: ACP agents as data. Loads the shipped descriptors
 * (`descriptors/*.json`) and the user's `<home>/agents/*.json` (a user descriptor of a
 * shipped id replaces it), and has the generic ACP engine run each one; a descriptor that
 * cannot be used is refused with the field and the fix, and the others load. Each agent
 * installed in `<home>/agents/<id>/` (`POST /v1/agents/install`) is a provider of its id,
 * extended by the descriptor that names it. A descriptor added or changed, or an agent
 * installed or removed, while the daemon runs is used by the next session.
 */
import { existsSync, type FSWatcher, mkdirSync, watch } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin, type InstalledAgent, type PluginHost } from '@tutti/core';
import { AgentProviders } from './agent-providers.js';
import { loadDescriptor, loadDescriptors } from './load-descriptors.js';

export { agentDescriptorSchema, type AgentDescriptorFile } from './descriptor-schema.js';
export { loadDescriptor, loadDescriptors } from './load-descriptors.js';

/** The descriptors shipped with tutti. */
export const SHIPPED_DESCRIPTORS = fileURLToPath(new URL('../descriptors/', import.meta.url));

/** How long file events of one change are gathered before the files are read again. */
const SETTLE_MS = 100;

/** Watches `dir` and hands each descriptor written or deleted there to `providers`. */
function watchUserDescriptors(
  dir: string,
  providers: AgentProviders,
  logger: PluginHost['logger'],
): FSWatcher | undefined {
  try {
    mkdirSync(dir, { recursive: true, mode: 0o700 });
  } catch {
    return undefined;
  }
  const changed = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  const watcher = watch(dir, (_event, name) => {
    if (!name?.endsWith('.json')) return;
    changed.add(name);
    clearTimeout(timer);
    timer = setTimeout(() => {
      for (const name of changed) {
        const file = join(dir, name);
        void (existsSync(file) ? loadDescriptor(file) : Promise.resolve(undefined))
          .then((load) => providers.userChanged(file, load))
          .catch((error: unknown) =>
            logger?.warn(
              { file, err: (error as Error).message },
              'a changed descriptor was not used',
            ),
          );
      }
      changed.clear();
    }, SETTLE_MS);
    timer.unref();
  });
  watcher.on('error', () => watcher.close());
  watcher.unref();
  return watcher;
}

/** The installed agents of the daemon's home, none when it has no feed or cannot list. */
async function installedAgents(host: PluginHost): Promise<readonly InstalledAgent[]> {
  try {
    return (await host.installedAgents?.list()) ?? [];
  } catch (error) {
    host.logger?.warn(
      { err: (error as Error).message },
      'the installed agents could not be listed: each is a provider again once installed again or at the next start',
    );
    return [];
  }
}

/** The plugin the daemon discovers in `plugins/agent-descriptors`. */
export default definePlugin({
  name: '@tutti/agent-descriptors',
  version: '0.1.0',
  async apply(host) {
    const user = host.home ? await loadDescriptors(join(host.home, 'agents')) : [];
    const shipped = await loadDescriptors(SHIPPED_DESCRIPTORS);
    const providers = new AgentProviders(host, shipped, user, await installedAgents(host));
    await providers.start();
    host.installedAgents?.subscribe((change) =>
      change.kind === 'installed'
        ? providers.installed(change.agent)
        : providers.removed(change.id),
    );
    if (host.home) watchUserDescriptors(join(host.home, 'agents'), providers, host.logger);
  },
});
