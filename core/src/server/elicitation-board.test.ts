import { describe, expect, it } from 'vitest';
import type { RelayedElicitation } from '../contracts/index.js';
import { createElicitationBoard } from './elicitation-board.js';

const record = (agentSessionId: string, message: string): RelayedElicitation => ({
  agentSessionId,
  connector: 'ask',
  tool: 'ask_confirm',
  request: { mode: 'form', message, requestedSchema: { type: 'object' } },
  since: 1,
});

describe('the elicitation board', () => {
  it('lists the pending ones per session, oldest first, until each is taken down', () => {
    const board = createElicitationBoard();
    const first = board.relay(record('s1', 'one'));
    const second = board.relay(record('s1', 'two'));
    board.relay(record('s2', 'other'));
    expect(board.pendingFor('s1').map((r) => r.request.message)).toEqual(['one', 'two']);
    expect(board.size).toBe(3);
    first();
    first();
    expect(board.pendingFor('s1').map((r) => r.request.message)).toEqual(['two']);
    second();
    expect(board.pendingFor('s1')).toEqual([]);
    expect(board.pendingFor('nobody')).toEqual([]);
    expect(board.size).toBe(1);
  });

  it('hands out copies that a reader cannot change', () => {
    const board = createElicitationBoard();
    board.relay(record('s1', 'one'));
    const list = board.pendingFor('s1');
    expect(() => (list as RelayedElicitation[]).pop()).toThrow();
    expect(board.pendingFor('s1')).toHaveLength(1);
  });
});
