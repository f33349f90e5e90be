/**
 * The `ConnectorSummary` of spec section 9.2: what `tutti connector available` shows about
 * one installed connector. Strict schemas: it can hold no URL, port, token, header or path
 * field, every derived field (server name, tool prefix, command) follows the key, and an
 * interface's `advice` is the fixed text of its status (interface-status.ts), never
 * upstream output.
 */
import { z } from 'zod';
import { CONNECTOR_SERVER_NAME } from '../contracts/index.js';
import {
  adviceOf,
  CLI_STATUSES,
  INTERFACE_STATUSES,
  type InterfaceStatus,
  PENDING_REASONS,
} from './interface-status.js';

export { PENDING_REASONS };

/** Run condition of one interface (not the user's enable/disable choice). */
export const interfaceStatusSchema = z.enum(INTERFACE_STATUSES);

/** Run condition of a CLI interface. */
export const cliStatusSchema = z.enum(CLI_STATUSES);

export type { InterfaceStatus };

/** `advice` is the table's text of `status`, and absent exactly when it is `ready`. */
function adviceMatches(face: { status: InterfaceStatus; advice?: string | undefined }): boolean {
  return face.advice === adviceOf(face.status);
}
const adviceRule = { message: 'advice must be the fixed text of its status (none when ready)' };

/** Zod schema of {@link SkillSummary}: a skill's name (as in SKILL.md), title and purpose. */
export const skillSummarySchema = z
  .object({
    name: z
      .string()
      .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/)
      .max(64),
    title: z.string().min(1).max(200),
    description: z.string().max(1024),
  })
  .strict();

/** One Connector-owned Skill, as summarized (never its content or path). */
export type SkillSummary = z.infer<typeof skillSummarySchema>;

/** Zod schema of the MCP interface entry. */
export const mcpInterfaceSchema = z
  .object({
    kind: z.literal('mcp'),
    serverName: z.literal(CONNECTOR_SERVER_NAME),
    toolPrefix: z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}_$/),
    status: interfaceStatusSchema,
    advice: z.string().optional(),
  })
  .strict()
  .refine(adviceMatches, adviceRule);

/** Zod schema of the CLI interface entry. */
export const cliInterfaceSchema = z
  .object({
    kind: z.literal('cli'),
    command: z.string().regex(/^tutti-connector-[a-z0-9][a-z0-9-]{0,31}$/),
    status: cliStatusSchema,
    advice: z.string().optional(),
  })
  .strict()
  .refine(adviceMatches, adviceRule);

/** One release of a connector: its manifest version and the store's revision. */
const releaseSchema = z
  .object({ version: z.string().min(1).max(256), revision: z.number().int().nonnegative() })
  .strict();

/** Zod schema of {@link ConnectorSummary}. */
export const connectorSummarySchema = z
  .object({
    key: z.string().regex(/^[a-z0-9][a-z0-9-]{0,31}$/),
    name: z.string().min(1).max(200),
    description: z.string().max(2048),
    skills: z.array(skillSummarySchema),
    interfaces: z.array(z.discriminatedUnion('kind', [mcpInterfaceSchema, cliInterfaceSchema])),
    /** The release serving now. */
    running: releaseSchema.optional(),
    /** The installed release while it has not run; `reason` is one of {@link PENDING_REASONS}. */
    pending: releaseSchema
      .extend({ reason: z.enum(PENDING_REASONS) })
      .strict()
      .optional(),
  })
  .strict();

/** One connector as `tutti connector available` shows it (spec section 9.2). */
export type ConnectorSummary = z.infer<typeof connectorSummarySchema>;

/** Zod schema of {@link ConnectorMetadata}, what a reconciler commits per generation. */
export const connectorMetadataSchema = z
  .object({
    name: z.string().min(1).max(200),
    description: z.string().max(2048),
    /** Present when the release ships an MCP server. */
    mcp: z.object({ status: interfaceStatusSchema }).strict().optional(),
    /** Present when the release ships a CLI entrypoint. */
    cli: z.object({ status: cliStatusSchema }).strict().optional(),
    skills: z.array(skillSummarySchema).default([]),
  })
  .strict();

/** Discover metadata of one connector release; the key-derived fields are filled in. */
export type ConnectorMetadata = z.input<typeof connectorMetadataSchema>;
