/**
 * @tutti/provider-acp: the ACP provider plugin. Registers one provider per descriptor
 * (`opencode`, and `acp` for any ACP command given as `launch.command`).
 */
import { defineProvider } from '@tutti/core';
import { createAcpProvider } from './acp-provider.js';
import { genericAcpDescriptor, opencodeDescriptor } from './descriptors.js';

export { connectAcp } from './acp-connection.js';
export { createAcpProvider } from './acp-provider.js';
export { AcpSession } from './acp-session.js';
export * from './descriptors.js';
export { acpMcpServers, META_KEY, sessionParams } from './project-params.js';

/** The plugin the daemon discovers in `providers/acp`. */
export default defineProvider({
  name: '@tutti/provider-acp',
  version: '0.1.0',
  capabilities: { httpMcp: true, nativeReload: true, load: true, resume: true },
  apply(host) {
    host.registerProvider(createAcpProvider(opencodeDescriptor));
    host.registerProvider(createAcpProvider(genericAcpDescriptor));
  },
});
