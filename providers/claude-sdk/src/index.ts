/** @tutti/provider-claude-sdk: Claude Code through the Claude Agent SDK, as a tutti plugin. */
import { definePlugin } from '@tutti/core';
import { installClaudeSdkAgent } from './claude-sdk-provider.js';

export * from './claude-sdk-provider.js';
export * from './claude-sdk-session.js';
export type { EngineLogger } from './logger.js';
export * from './prompt-stream.js';
export * from './query-options.js';

/** The plugin the daemon discovers in `providers/claude-sdk`. */
export default definePlugin({
  name: '@tutti/provider-claude-sdk',
  version: '0.1.0',
  apply(host) {
    installClaudeSdkAgent(host);
  },
});
