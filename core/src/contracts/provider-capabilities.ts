/**
 * What a provider says about its agents. Only what no method can say is declared
 * (`httpMcp`, `listChanged`); everything else a provider can do is the presence of its
 * optional methods and refresh taps, and is derived from them (`describeProvider`).
 * Upper layers branch on these, never on a provider's name.
 */
import { z } from 'zod';

/** Zod schema of {@link ProviderFlags}; checked when a provider is registered. */
export const providerFlagsSchema = z
  .object({
    /** The agent's MCP client can use a Streamable HTTP server (an agent's handshake may still say no). */
    httpMcp: z.boolean(),
    /** The agent re-lists tools on `notifications/tools/list_changed`. */
    listChanged: z.boolean(),
  })
  .strict();

/** The flags a provider declares. */
export type ProviderFlags = z.infer<typeof providerFlagsSchema>;

/** Flags of an agent that declares nothing: it gets a plain session. */
export const NO_FLAGS: Readonly<ProviderFlags> = Object.freeze({
  httpMcp: false,
  listChanged: false,
});

/** What `GET /v1/providers` shows of one provider: its flags and what its methods and taps offer. */
export interface ProviderCapabilities extends ProviderFlags {
  /** The agent is spawned and asked (e.g. ACP `initialize`) before its session is prepared. */
  readonly handshake: boolean;
  /** Earlier sessions can be loaded (history replayed). */
  readonly load: boolean;
  /** Earlier sessions can be resumed. */
  readonly resume: boolean;
  /** Refresh strategies of its `toolsListChanged` chain, in the order they are tried. */
  readonly refresh: readonly string[];
  /** The permission modes a daemon-driven session of it may ask for (`agent` always). */
  readonly permissions: readonly ('ask' | 'allow-connector' | 'agent')[];
}
