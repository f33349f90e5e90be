/**
 * `@tutti/core/internal`: the parts of core that the daemon's own binaries, the tests and
 * the benches reach (process supervision, the registry, the loopback server, the store).
 * No compatibility promise: providers and plugins use `@tutti/core` only.
 */

// The fixed advice of a connector.failed event.
export { FAILURE_ADVICE } from './runtime/connector-events.js';

// Process supervision.
export { spawnAgent } from './process/agent-process.js';
export { acquireHomeLock } from './daemon/home-lock.js';
export { installExitHandlers } from './process/exit-handlers.js';
export {
  isProcessGroupAlive,
  isProcessRunning,
  signalGroup,
  waitForGroupExit,
} from './process/process-group.js';
export { createProcessSupervisor, type ProcessSupervisor } from './process/supervisor.js';
export { createSecretRedactor } from './process/secret-redactor.js';
export { openTracer, sampleRatioOf, tracesEndpointOf } from './telemetry/open-tracer.js';
export { createCallRecorder } from './daemon/call-recorder.js';
export { openAuditLog } from './audit/index.js';

// Tokens, the registry and the loopback `connector` server.
export { createTokenService, type RevokeReason, type TokenService } from './auth/token-service.js';
export type { UpstreamTool } from './contracts/connector-route.js';
export { createConnectorMCPRegistry } from './registry/connector-mcp-registry.js';
export { createEventHub, type TuttiEvent } from './events/index.js';
export type { ConnectorMCPRegistry } from './registry/types.js';
export { type ConnectorServer, createConnectorServer } from './server/connector-server.js';
export { DEFAULT_BODY_LIMIT } from './server/constants.js';

// Upstreams, the store, manifests, shims, plugins and the runtime.
export { openStdioUpstream, type StdioUpstreamOptions } from './upstream/open-stdio.js';
export type { UpstreamConnection } from './upstream/types.js';
export { openStore } from './store/store.js';
export { keychainItems } from './credentials/keychain-items.js';
export { copyRelease } from './store/release-copy.js';
export { HOME_FORMAT_VERSION } from './store/home-format/migrations.js';
export {
  listSkills,
  parseManifest,
  readManifest,
  validateManifest,
} from './manifest/read-manifest.js';
export { resolveReleasePaths } from './manifest/release-paths.js';
export { publishShim } from './shims/publish-shim.js';
export { shQuote } from './shims/shell-quote.js';
export { applyPlugin, discoverAndLoadPlugins, type LoaderHost } from './plugins/load-plugins.js';
export type { ConnectorStatus } from './runtime/types.js';

// The daemon's control API.
export { buildControlApp } from './daemon/control-app.js';

// The agent installer (registry entries and signed extensions).
export {
  type AgentInstaller,
  type AgentInstallerOptions,
  type AgentInstallRequest,
  type AgentListing,
  checkDownloadUrl,
  createAgentInstaller,
  platformKey,
} from './agents/index.js';

// For the test kit's doubles of core (`@tutti/test-kit/core/*`), which reach core through
// its exports only: the upstream contract, the connector app, the runtime's parts and the
// session host's ports.
export type {
  CallSignal,
  UpstreamCallOptions,
  UpstreamCallResult,
  UpstreamClient,
} from './contracts/connector-route.js';
export type { ElicitationAnswer, ElicitationRequest } from './contracts/elicitation.js';
export {
  buildConnectorApp,
  type ConnectorApp,
  type ConnectorServerOptions,
} from './server/connector-app.js';
export { createConnectorCatalog } from './catalog/connector-catalog.js';
export {
  type ConnectorRuntimeOptions,
  createConnectorRuntime,
} from './runtime/connector-runtime.js';
export type { RuntimeLogger } from './runtime/types.js';
export type { Clock } from './dashboard/clock.js';
export type { ConnectorRuntimePort, SessionTokenService } from './session/session-types.js';
