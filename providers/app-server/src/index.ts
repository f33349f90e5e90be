/**
 * @tutti/provider-app-server: app-server agents (Codex, Tutti Agent) as a tutti plugin.
 * Registers one provider per descriptor; behaviour comes from the descriptor alone.
 */
import { definePlugin, resolveAgentCommand } from '@tutti/core';
import { createAppServerProvider } from './app-server-provider.js';
import { createCodexDescriptor, createTuttiAgentDescriptor } from './descriptor.js';

export type { AppServerSessionConfig } from './app-server-provider.js';

/** The plugin the daemon discovers in `providers/app-server`. */
export default definePlugin({
  name: '@tutti/provider-app-server',
  version: '0.1.0',
  async apply(host) {
    // Codex from the npm package beside the daemon, else PATH: the same however tuttid started.
    const codex = await resolveAgentCommand(
      { package: '@openai/codex', bin: 'codex' },
      import.meta.url,
      process.env.PATH,
    );
    const command = 'command' in codex ? { command: codex.command } : {};
    host.registerProvider(createAppServerProvider(createCodexDescriptor(command)));
    host.registerProvider(createAppServerProvider(createTuttiAgentDescriptor()));
  },
});
