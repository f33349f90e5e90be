/**
 * @tutti/agent-descriptors: ACP agents as data. Loads the shipped descriptors
 * (`descriptors/*.json`) and the user's `<home>/agents/*.json` (a user descriptor of a
 * shipped id replaces it), and has the generic ACP engine run each one; a descriptor that
 * cannot be used is refused with the field and the fix, and the others load. A descriptor
 * added or changed while the daemon runs is used by the next session.
 */
import { type FSWatcher, mkdirSync, watch } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { definePlugin, type PluginHost } from '@tutti/core';
import { createAcpProvider } from '@tutti/provider-acp';
import { type DescriptorLoad, loadDescriptor, loadDescriptors } from './load-descriptors.js';

export { agentDescriptorSchema, type AgentDescriptorFile } from './descriptor-schema.js';
export { loadDescriptor, loadDescriptors } from './load-descriptors.js';

/** The descriptors shipped with tutti. */
export const SHIPPED_DESCRIPTORS = fileURLToPath(new URL('../descriptors/', import.meta.url));

/** How long file events of one change are gathered before the folder is read again. */
const SETTLE_MS = 100;

/**
 * Registers the ACP provider of each usable descriptor on `host`; a descriptor of a name it
 * registered before replaces that provider (the next session uses it).
 */
function installer(host: PluginHost) {
  const registered = new Set<string>();
  return (load: DescriptorLoad, shipped: boolean) => install(host, registered, load, shipped);
}

function install(
  host: PluginHost,
  registered: Set<string>,
  load: DescriptorLoad,
  shipped: boolean,
): void {
  if ('error' in load) {
    // A shipped agent that is not installed here is not an error of the user's.
    const notInstalled = shipped && load.error.details.field === 'command';
    host.logger?.[notInstalled ? 'info' : 'warn'](
      { file: load.file, code: load.error.code },
      load.error.message,
    );
    return;
  }
  const { name } = load.descriptor;
  const provider = createAcpProvider(load.descriptor, { logger: host.logger });
  host.registerProvider(provider, { replace: registered.has(name) });
  registered.add(name);
}

/** Watches `dir` and installs each descriptor added or changed there. */
function watchUserDescriptors(
  dir: string,
  add: ReturnType<typeof installer>,
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
      for (const file of changed)
        void loadDescriptor(join(dir, file)).then((load) => add(load, false));
      changed.clear();
    }, SETTLE_MS);
    timer.unref();
  });
  watcher.on('error', () => watcher.close());
  watcher.unref();
  return watcher;
}

/** The plugin the daemon discovers in `plugins/agent-descriptors`. */
export default definePlugin({
  name: '@tutti/agent-descriptors',
  version: '0.1.0',
  async apply(host) {
    const add = installer(host);
    const user = host.home ? await loadDescriptors(join(host.home, 'agents')) : [];
    const userIds = new Set(
      user.flatMap((load) => ('descriptor' in load ? [load.descriptor.name] : [])),
    );
    for (const load of await loadDescriptors(SHIPPED_DESCRIPTORS)) {
      if ('descriptor' in load && userIds.has(load.descriptor.name)) continue;
      add(load, true);
    }
    for (const load of user) add(load, false);
    if (host.home) watchUserDescriptors(join(host.home, 'agents'), add);
  },
});
