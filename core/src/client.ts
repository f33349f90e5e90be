/**
 * `@tutti/core/client`: the small part of core a client of the daemon needs (errors, the
 * home rule, the `connector available` shape and its check, text sanitizing). Nothing
 * here loads zod, fastify, ajv or an MCP SDK: the whole of `@tutti/core` costs a CLI call
 * hundreds of milliseconds it does not need (see docs/benchmarks.md). A test keeps it so.
 */
export { type DaemonInfo, daemonFilePath } from './daemon/daemon-file.js';
export { homeLockHolder } from './daemon/home-lock.js';
export * from './errors/index.js';
export { sanitizeText } from './guidance/sanitize-text.js';
export type { ConnectorSummary, SkillSummary } from './catalog/connector-summary.js';
export { parseConnectorSummaries } from './catalog/connector-summary-check.js';
export {
  adviceOf,
  CLI_STATUSES,
  type CliStatus,
  INTERFACE_ADVICE,
  INTERFACE_STATUSES,
  type InterfaceStatus,
  PENDING_REASONS,
} from './catalog/interface-status.js';
export { resolveHome } from './store/home.js';
