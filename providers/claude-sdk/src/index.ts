/** @tutti/provider-claude-sdk: Claude Code through the Claude Agent SDK, as a tutti plugin. */
import { defineProvider } from '@tutti/core';
import { createClaudeSdkProvider } from './claude-sdk-provider.js';

export * from './claude-sdk-provider.js';
export * from './claude-sdk-session.js';
export type { EngineLogger } from './logger.js';
export * from './prompt-stream.js';
export * from './query-options.js';
export * from './skill-plugin.js';

/** The plugin the daemon discovers in `providers/claude-sdk`. */
export default defineProvider({
  name: '@tutti/provider-claude-sdk',
  version: '0.1.0',
  capabilities: {
    httpMcp: true,
    listChanged: true,
    nativeReload: true,
    resume: true,
    skills: true,
  },
  apply(host) {
    host.registerProvider(createClaudeSdkProvider());
  },
});
