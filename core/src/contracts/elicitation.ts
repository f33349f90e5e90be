/**
 * An upstream asking the person mid-call (MCP elicitation) and telling how far a long call
 * got (progress): the shapes the upstream clients, the `connector` server and the sessions
 * share. The daemon relays these; it never answers an elicitation on the person's behalf
 * except with `cancel` (nobody can be asked, or nobody answered in time).
 */
import type { JsonSchemaObject } from './json.js';

/** How an elicitation asks: a form (a flat JSON Schema) or a URL to open (2025-11-25). */
export type ElicitationMode = 'form' | 'url';

/**
 * An upstream's `elicitation/create` params as the daemon relays them: only these members,
 * so nothing else an upstream puts in its request (its `_meta` included) reaches an agent.
 */
export interface ElicitationRequest {
  readonly mode: ElicitationMode;
  /** What the person is asked, as the upstream wrote it. */
  readonly message: string;
  /** Form mode: the schema of the content asked for. */
  readonly requestedSchema?: JsonSchemaObject;
  /** URL mode: the URL to open. */
  readonly url?: string;
  /** URL mode: the upstream's id of the elicitation. */
  readonly elicitationId?: string;
}

/** What the person did. */
export type ElicitationAction = 'accept' | 'decline' | 'cancel';

/** The answer to an elicitation (`content` only with `accept` in form mode). */
export interface ElicitationAnswer {
  readonly action: ElicitationAction;
  readonly content?: Readonly<Record<string, unknown>>;
}

/** One progress notification of an upstream call, without its token. */
export interface CallProgress {
  readonly progress: number;
  readonly total?: number;
  readonly message?: string;
}

/** An elicitation the `connector` server relayed to an agent and is waiting on. */
export interface RelayedElicitation {
  /** The agent session whose token made the call. */
  readonly agentSessionId: string;
  /** The connector whose upstream asked. */
  readonly connector: string;
  /** The local name of the tool being called (`<connectorKey>_<tool>`). */
  readonly tool: string;
  readonly request: ElicitationRequest;
  /** When it was relayed (ms since the epoch). */
  readonly since: number;
}

/** What the `connector` server relayed to agents and has not had answered yet. */
export interface PendingElicitations {
  /** Those pending for one agent session, oldest first. */
  pendingFor(agentSessionId: string): readonly RelayedElicitation[];
}
