import { describe, expect, it } from 'vitest';
import { TuttiError } from '../errors/index.js';
import { RpcError } from '../server/json-rpc.js';
import { outcomeOf } from './outcome.js';

const target = { target: 'notes', tool: 'add' };

describe('the outcome of a tools/call', () => {
  it('is ok for a result, tool_error for one with isError', () => {
    expect(outcomeOf({ content: [] }, undefined, false)).toBe('ok');
    expect(outcomeOf({ content: [], isError: false }, undefined, false)).toBe('ok');
    expect(outcomeOf({ content: [], isError: true }, undefined, false)).toBe('tool_error');
  });

  it('names timeouts, cancellations and sign-ins apart from other errors', () => {
    const timeout = new TuttiError('TUTTI_ERR_UPSTREAM_CALL_TIMEOUT', { ...target, timeoutMs: 5 });
    expect(outcomeOf(undefined, timeout, false)).toBe('timeout');
    expect(
      outcomeOf(undefined, new TuttiError('TUTTI_ERR_UPSTREAM_CANCELLED', target), false),
    ).toBe('cancelled');
    const signIn = new TuttiError('TUTTI_ERR_OAUTH_SIGN_IN_REQUIRED', { key: 'github' });
    expect(outcomeOf(undefined, signIn, false)).toBe('auth_required');
    const refused = new TuttiError('TUTTI_ERR_UPSTREAM_UNAUTHORIZED', { target: 'x', status: 401 });
    expect(outcomeOf(undefined, refused, false)).toBe('auth_required');
    const unknown = new TuttiError('TUTTI_ERR_REGISTRY_UNKNOWN_TOOL', { localName: 'x' });
    expect(outcomeOf(undefined, unknown, false)).toBe('rpc_error');
    expect(outcomeOf(undefined, new RpcError(-32602, 'Invalid params'), false)).toBe('rpc_error');
  });

  it('is cancelled for any failure of an aborted request', () => {
    const exited = new TuttiError('TUTTI_ERR_UPSTREAM_EXITED', { target: 'x', reason: 'gone' });
    expect(outcomeOf(undefined, exited, true)).toBe('cancelled');
    expect(outcomeOf(undefined, new Error('boom'), true)).toBe('cancelled');
  });
});
