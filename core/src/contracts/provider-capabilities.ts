/**
 * What a provider declares about the agents it drives. Upper layers branch on these
 * capabilities, never on a provider's name. A capability not declared is `false`.
 */
import { z } from 'zod';

/** Zod schema of {@link ProviderCapabilities}; validated when a provider plugin is applied. */
export const providerCapabilitiesSchema = z
  .object({
    /** The agent's MCP client can use a Streamable HTTP server. */
    httpMcp: z.boolean().default(false),
    /** The agent re-lists tools on `notifications/tools/list_changed`. */
    listChanged: z.boolean().default(false),
    /** The provider can make a live session reload its MCP servers natively. */
    nativeReload: z.boolean().default(false),
    /** The provider can reconnect the session's MCP servers before the next turn. */
    reconnectBeforeTurn: z.boolean().default(false),
    /** Sessions can be loaded again by id. */
    load: z.boolean().default(false),
    /** Sessions can be resumed by id. */
    resume: z.boolean().default(false),
    /** The provider delivers skill roots to the agent's native skill scanner. */
    skills: z.boolean().default(false),
  })
  .strict();

/** Capabilities a provider declares; see {@link providerCapabilitiesSchema}. */
export type ProviderCapabilities = z.infer<typeof providerCapabilitiesSchema>;

/** Capabilities of a provider that declares nothing: it degrades to a plain session. */
export const NO_CAPABILITIES: Readonly<ProviderCapabilities> = Object.freeze(
  providerCapabilitiesSchema.parse({}),
);
