/**
 * The board of elicitations the `connector` server relayed to agents and is waiting on,
 * per agent session, oldest first: what the daemon shows (the dashboard, the control API)
 * of questions an upstream is asking right now. Whoever relays one puts it up and takes it
 * down when it is settled (answered, timed out, cancelled); the board decides nothing.
 */
import type { PendingElicitations, RelayedElicitation } from '../contracts/index.js';

/** The board of one server. */
export interface ElicitationBoard extends PendingElicitations {
  /**
   * Puts `record` up; returns the function that takes it down again (idempotent). Both
   * surfaces use it: the 2025 response streams and the 2026-07-28 parked calls.
   */
  relay(record: RelayedElicitation): () => void;
  /** Number of pending elicitations, all sessions together. */
  readonly size: number;
}

const NONE: readonly RelayedElicitation[] = Object.freeze([]);

/** An empty board. */
export function createElicitationBoard(): ElicitationBoard {
  const bySession = new Map<string, RelayedElicitation[]>();
  let size = 0;
  return {
    relay(record) {
      const { agentSessionId } = record;
      const list = bySession.get(agentSessionId);
      if (list) list.push(record);
      else bySession.set(agentSessionId, [record]);
      size += 1;
      let up = true;
      return () => {
        if (!up) return;
        up = false;
        const current = bySession.get(agentSessionId)!;
        current.splice(current.indexOf(record), 1);
        if (current.length === 0) bySession.delete(agentSessionId);
        size -= 1;
      };
    },
    pendingFor(agentSessionId) {
      const list = bySession.get(agentSessionId);
      return list ? Object.freeze([...list]) : NONE;
    },
    get size() {
      return size;
    },
  };
}
