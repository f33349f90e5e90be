/**
 * `GET /v1/audit`: the audit trail of `tools/call`s (docs/audit.md), newest first, filtered
 * by time, connector, session and outcome, and paged with `before` (the `nextBefore` of the
 * previous page) or followed with `after` (the highest `seq` seen). The dashboard's
 * "Tool calls" view reads it through `/dashboard/api/audit`.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  AUDIT_OUTCOMES,
  type AuditLog,
  type AuditOutcome,
  type AuditQuery,
} from '../audit/index.js';
import { TuttiError } from '../errors/index.js';
import { parseBody } from './control-app.js';

/** Most records one page holds. */
export const MAX_AUDIT_PAGE = 1000;

const seq = z.coerce.number().int().min(0);
const auditQuery = z
  .object({
    since: z
      .string()
      .refine((text) => !Number.isNaN(Date.parse(text)), 'must be an ISO 8601 time')
      .optional(),
    connector: z.string().min(1).max(200).optional(),
    session: z.string().min(1).max(200).optional(),
    outcome: z.enum(AUDIT_OUTCOMES as [AuditOutcome, ...AuditOutcome[]]).optional(),
    before: seq.optional(),
    after: seq.optional(),
    limit: z.coerce.number().int().min(1).max(MAX_AUDIT_PAGE).optional(),
  })
  .strict();

/** The query a request's query string asks for (a bad one answers 400 naming the field). */
export function auditQueryOf(query: unknown): AuditQuery {
  const { since, ...rest } = parseBody(auditQuery, query);
  return { ...rest, ...(since !== undefined && { since: Date.parse(since) }) };
}

/** Adds `GET /v1/audit` to `app`; without an audit log (`--no-audit`) it answers 409 saying so. */
export function registerAuditEndpoint(
  app: FastifyInstance,
  audit: Pick<AuditLog, 'query'> | undefined,
): void {
  app.get('/v1/audit', async (request) => {
    const query = auditQueryOf(request.query);
    if (!audit) throw new TuttiError('TUTTI_ERR_CONTROL_AUDIT_OFF');
    return audit.query(query);
  });
}
