/**
 * @tutti/provider-app-server: app-server agents (Codex, Tutti Agent) as a tutti plugin.
 * Registers one provider per descriptor; behaviour comes from the descriptor alone.
 */
import { definePlugin, resolveAgentCommand } from '@tutti/core';
import { installAppServerAgent } from './app-server-provider.js';
import { createCodexDescriptor, createTuttiAgentDescriptor } from './descriptor.js';

export * from './app-server-engine.js';
export * from './app-server-provider.js';
export * from './codex-config.js';
export * from './descriptor.js';
export * from './session-home.js';
export type { AgentNotification } from './stdio-rpc.js';

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
    installAppServerAgent(
      host,
      createCodexDescriptor('command' in codex ? { command: codex.command } : {}),
    );
    installAppServerAgent(host, createTuttiAgentDescriptor());
  },
});
