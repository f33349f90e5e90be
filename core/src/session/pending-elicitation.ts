/**
 * What the session host lists of the questions live sessions' agents are asked (see
 * `AgentSessionHost.pendingElicitations`); a file of types only, which the dashboard's page
 * shares.
 */
import type { ElicitationMode } from '../contracts/elicitation.js';

/** An elicitation a live session's agent is asked and nobody answered yet. Holds no secret. */
export interface PendingElicitationInfo {
  /** The agent session. */
  readonly session: string;
  /** The MCP server that asks (`connector` for the daemon's own). */
  readonly server: string;
  /** The connector whose upstream asks and its local tool, when the daemon knows them. */
  readonly connector?: string;
  readonly tool?: string;
  readonly mode: ElicitationMode;
  readonly message: string;
  /** When it was relayed (ms since the epoch). */
  readonly since: number;
  /** The id the running turn's `elicitation` event gave it, when the host was asked. */
  readonly requestId?: string;
}
