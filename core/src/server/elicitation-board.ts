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
  /**
   * Calls `listener` with the agent session whose pending ones changed, after each put up
   * or take down; returns the unsubscribe function. A throwing listener is ignored.
   */
  onChange(listener: (agentSessionId: string) => void): () => void;
  /** Number of pending elicitations, all sessions together. */
  readonly size: number;
}

const NONE: readonly RelayedElicitation[] = Object.freeze([]);

/** An empty board. */
export function createElicitationBoard(): ElicitationBoard {
  const bySession = new Map<string, RelayedElicitation[]>();
  const listeners = new Set<(agentSessionId: string) => void>();
  let size = 0;
  const changed = (agentSessionId: string): void => {
    for (const listener of [...listeners]) {
      try {
        listener(agentSessionId);
      } catch {
        // A listener's failure is its own; the board and the other listeners go on.
      }
    }
  };
  return {
    relay(record) {
      const { agentSessionId } = record;
      const list = bySession.get(agentSessionId);
      if (list) list.push(record);
      else bySession.set(agentSessionId, [record]);
      size += 1;
      changed(agentSessionId);
      let up = true;
      return () => {
        if (!up) return;
        up = false;
        const current = bySession.get(agentSessionId)!;
        current.splice(current.indexOf(record), 1);
        if (current.length === 0) bySession.delete(agentSessionId);
        size -= 1;
        changed(agentSessionId);
      };
    },
    pendingFor(agentSessionId) {
      const list = bySession.get(agentSessionId);
      return list ? Object.freeze([...list]) : NONE;
    },
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    get size() {
      return size;
    },
  };
}
