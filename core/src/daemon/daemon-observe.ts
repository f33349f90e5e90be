/**
 * What the daemon observes of the calls it serves, opened at start: the tracer (the
 * OpenTelemetry one only with an OTLP endpoint, docs/tracing.md) and the audit log in
 * `<home>/audit/` (unless turned off, docs/audit.md). Each comes with its close, which the
 * daemon runs after the connector server closed, so the last calls are kept and sent.
 */
import { join } from 'node:path';
import type { Logger } from 'pino';
import { type AuditLog, type AuditLogOptions, openAuditLog } from '../audit/index.js';
import { SERVER_INFO } from '../server/constants.js';
import { openTracer, type Tracer, type TracingOptions } from '../telemetry/index.js';

/** The audit settings of a daemon (`DaemonOptions.audit`). */
export type DaemonAuditOptions = { readonly enabled?: boolean } & Pick<
  AuditLogOptions,
  'captureValues' | 'maxFileBytes' | 'maxFiles' | 'flushMs'
>;

/** The tracer and the audit log of one daemon. */
export interface DaemonObservers {
  readonly tracer: Tracer;
  /** Absent when the audit is off. */
  readonly audit: AuditLog | undefined;
}

/** Opens both; `closeLater` is given each close, in the order they should run last-first. */
export async function openObservers(
  home: string,
  settings: { tracing?: TracingOptions; audit?: DaemonAuditOptions },
  logger: Logger,
  redact: (text: string) => string,
  closeLater: (close: () => Promise<unknown>) => void,
): Promise<DaemonObservers> {
  const tracer = await openTracer(settings.tracing, {
    serviceName: 'tuttid',
    serviceVersion: SERVER_INFO.version,
    onDropped: (count, why) => logger.warn({ spans: count, why }, 'trace spans were dropped'),
  });
  closeLater(() => tracer.close());
  const { enabled = true, ...auditOptions } = settings.audit ?? {};
  if (!enabled) return { tracer, audit: undefined };
  const audit = await openAuditLog({
    ...auditOptions,
    dir: join(home, 'audit'),
    redact,
    onError: (error) => logger.warn({ err: error.message }, 'the audit trail could not be written'),
  });
  closeLater(() => audit.close());
  return { tracer, audit };
}
