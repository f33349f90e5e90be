/**
 * @tutti/provider-acp: the generic ACP engine, and the plugin that registers `acp` (any ACP
 * command given as `launch.command`). The ACP agents known by name are descriptors, run by
 * this engine from the agent-descriptors plugin (plugins/agent-descriptors), which is why
 * the engine and its descriptor type are exported besides the plugin.
 */
import { definePlugin } from '@tutti/core';
import { createAcpProvider } from './acp-provider.js';
import { genericAcpDescriptor } from './descriptors.js';

export { createAcpProvider } from './acp-provider.js';
export { credentialSegment } from './credential-names.js';
export type { AcpAgentDescriptor } from './descriptors.js';
export type { AcpSessionParams } from './project-params.js';

/** The plugin the daemon discovers in `providers/acp`. */
export default definePlugin({
  name: '@tutti/provider-acp',
  version: '0.1.0',
  apply(host) {
    host.registerProvider(createAcpProvider(genericAcpDescriptor, { logger: host.logger }));
  },
});
