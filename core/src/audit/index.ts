/** The audit trail of `tools/call`s (docs/audit.md). */
export type { AuditEntry, AuditLog, AuditLogOptions } from './audit-log.js';
export { AUDIT_DEFAULTS, openAuditLog } from './audit-writer.js';
export {
  AUDIT_OUTCOMES,
  type AuditOutcome,
  type AuditPage,
  type AuditQuery,
  type AuditRecord,
} from './types.js';
