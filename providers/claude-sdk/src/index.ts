/** @tutti/provider-claude-sdk: Claude Code through the Claude Agent SDK, as a tutti plugin. */
import { definePlugin } from '@tutti/core';
import { createClaudeSdkProvider } from './claude-sdk-provider.js';

export type { ClaudeSessionOptions } from './query-options.js';

/** The plugin the daemon discovers in `providers/claude-sdk`. */
export default definePlugin({
  name: '@tutti/provider-claude-sdk',
  version: '0.1.0',
  apply(host) {
    host.registerProvider(createClaudeSdkProvider());
  },
});
