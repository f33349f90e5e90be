/**
 * @tutti/provider-acp: the generic ACP engine, and the plugin that registers `acp` (any ACP
 * command given as `launch.command`). The ACP agents known by name are descriptors, run by
 * this engine from the agent-descriptors plugin (plugins/agent-descriptors).
 */
import { definePlugin } from '@tutti/core';
import { installAcpAgent } from './acp-provider.js';
import { genericAcpDescriptor } from './descriptors.js';

export type { AcpConnection } from './acp-connection.js';
export { type AcpState, createAcpProvider, installAcpAgent } from './acp-provider.js';
export { AcpSession } from './acp-session.js';
export * from './descriptors.js';
export {
  type AcpSessionParams,
  acpMcpServers,
  bindingsInParams,
  META_KEY,
  sessionParams,
} from './project-params.js';

/** The plugin the daemon discovers in `providers/acp`. */
export default definePlugin({
  name: '@tutti/provider-acp',
  version: '0.1.0',
  apply(host) {
    installAcpAgent(host, genericAcpDescriptor);
  },
});
