/**
 * The agent installer: ACP registry entries (npm, binary, uv) and signed data-only
 * extensions, installed into `<home>/agents/<id>/` and announced on the installed-agents
 * feed (docs/installing-agents.md, docs/agent-extensions.md).
 */
export { createAgentInstaller } from './agent-installer.js';
export { platformKey } from './distribution.js';
export { checkDownloadUrl } from './download.js';
export type {
  AgentInstaller,
  AgentInstallerOptions,
  AgentInstallRequest,
  AgentListing,
} from './types.js';
