/**
 * `@tutti/core/client`: the small part of core a client of the daemon needs (errors, the
 * home rule, the `connector available` shape, text sanitizing). Importing the whole of
 * `@tutti/core` pulls fastify, both MCP SDKs and ajv: about 340 ms of CPU a CLI call
 * does not need.
 */
export { type DaemonInfo, daemonFilePath } from './daemon/daemon-file.js';
export * from './errors/index.js';
export { sanitizeText } from './guidance/sanitize-text.js';
export {
  type ConnectorSummary,
  type SkillSummary,
  connectorSummarySchema,
} from './routes/connector-summary.js';
export { resolveHome } from './store/home.js';
