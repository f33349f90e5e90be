/**
 * `@tutti/core`: what providers, plugins and the CLI build on: the contracts, the errors,
 * the session host and the provider contract, the plugin helpers and the daemon entry.
 * Every name is listed here on purpose; nothing else of core is public. Daemon, CLI,
 * bench and test kit internals are in `@tutti/core/internal`, what a client of a running
 * daemon needs in `@tutti/core/client`; test helpers are in the test kit, `@tutti/test-kit`.
 */

// Contracts.
export type { MCPServerBinding } from './contracts/mcp-server-binding.js';
export type { PreparedRuntime } from './contracts/prepared-runtime.js';
export type { ProviderFlags } from './contracts/provider-capabilities.js';
export type {
  ElicitationAnswer,
  ElicitationRequest,
  PendingElicitations,
  RelayedElicitation,
} from './contracts/elicitation.js';
export type {
  InstalledAgent,
  InstalledAgentRun,
  InstalledAgentSource,
  InstalledAgentsChange,
  InstalledAgentsFeed,
  InstalledExtension,
} from './contracts/installed-agents.js';

// Errors.
export type { ErrorCode } from './errors/codes.js';
export { type ErrorDetails, isTuttiError, TuttiError } from './errors/tutti-error.js';

// Agent processes: the one way a provider starts one.
export type { AgentProcess, AgentSpawnSpec } from './process/agent-process.js';

// The session host and the provider contract.
export {
  type AgentChannel,
  type ChannelLimits,
  openAgentChannel,
  watchAgentOutput,
} from './session/agent-channel.js';
export {
  type ProviderHooks,
  providerHooks,
  REFRESH_STAGES,
  REFRESH_STRATEGIES,
} from './session/hooks.js';
export type { AgentSession } from './session/agent-session.js';
export { AgentSessionHost } from './session/host.js';
export type {
  AgentSessionHostOptions,
  AgentSessionInfo,
  PendingElicitationInfo,
} from './session/host-types.js';
export type {
  AgentProvider,
  LiveRefresh,
  LiveSession,
  Materialized,
  OpenRequest,
  Reproject,
  Reprojection,
  ResolvedLaunch,
  SessionDriver,
  SessionSetup,
} from './session/provider-contract.js';
export { type Reopening, SESSION_OPERATIONS } from './session/operations.js';
export { type SessionFiles, sessionFiles } from './session/session-files.js';
export { type AgentCommand, resolveAgentCommand } from './process/agent-command.js';
export {
  type ElicitationAsk,
  type PermissionAsk,
  type PermissionMode,
  type PermissionOutcome,
  type PromptBlock,
  type ProviderTurnEvent,
  promptText,
  type StopReason,
  type ToolCallStatus,
  type ToolIdentity,
  type TurnSink,
} from './session/turn-types.js';
export { CONNECTOR_SERVER, type ToolNameForm } from './session/tool-proof.js';
export type {
  AgentAuthMethod,
  LaunchOptions,
  ProviderParams,
  ProviderParamsMap,
  SessionContext,
  SessionHookContext,
} from './session/session-types.js';

// Connector skills as an agent's own skills.
export { createSkillPlugin, skillFolders } from './skills/skill-plugin-folder.js';

// Plugins.
export { definePlugin, type PluginHost, type TuttiPlugin } from './plugins/plugin-contract.js';
export { variableLoadsCode } from './agents/code-variables.js';

// The daemon entry.
export { type Daemon, type DaemonOptions, startDaemon } from './daemon/daemon.js';
export type { CredentialStoreMode } from './credentials/select-vault.js';
export { SANDBOX_MODES, type SandboxMode } from './sandbox/types.js';
export type { ConnectorStatus } from './runtime/types.js';
export type { Dashboard } from './dashboard/index.js';
