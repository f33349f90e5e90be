import { randomBytes } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { RpcError } from './json-rpc.js';
import { argumentsDigest, createRequestStates, MAX_REQUEST_STATE_LENGTH } from './request-state.js';

const NOW = 1_800_000_000_000;
const binding = { tokenId: 'token-1', tool: 'files_delete', argumentsDigest: 'a'.repeat(64) };

/** The error `open` threw, or undefined when it verified. */
function refusal(open: () => unknown): unknown {
  try {
    open();
    return undefined;
  } catch (error) {
    return error;
  }
}

function expectInvalid(error: unknown): void {
  expect(error).toBeInstanceOf(RpcError);
  expect((error as RpcError).code).toBe(-32602);
  expect((error as RpcError).message).toMatch(/^Invalid params: .*retry the call from the start/);
}

describe('requestState sealing', () => {
  const states = createRequestStates(randomBytes(32));

  it('opens a state it sealed to the parked call id, for the same binding before expiry', () => {
    const id = states.newId();
    const state = states.seal(binding, id, NOW + 1000);
    expect(state.length).toBeLessThanOrEqual(MAX_REQUEST_STATE_LENGTH);
    expect(states.open(state, binding, NOW)).toBe(id);
  });

  it('refuses an expired state with the one -32602', () => {
    const state = states.seal(binding, states.newId(), NOW + 1000);
    expectInvalid(refusal(() => states.open(state, binding, NOW + 1000)));
  });

  it('refuses a state for another token, tool or argument digest', () => {
    const state = states.seal(binding, states.newId(), NOW + 1000);
    for (const other of [
      { ...binding, tokenId: 'token-2' },
      { ...binding, tool: 'files_rename' },
      { ...binding, argumentsDigest: 'b'.repeat(64) },
    ]) {
      expectInvalid(refusal(() => states.open(state, other, NOW)));
    }
  });

  it('refuses a state sealed by another server key', () => {
    const foreign = createRequestStates(randomBytes(32));
    const state = foreign.seal(binding, foreign.newId(), NOW + 1000);
    expectInvalid(refusal(() => states.open(state, binding, NOW)));
  });

  it('refuses every single-character change of a sealed state (the expiry included)', () => {
    const state = states.seal(binding, states.newId(), NOW + 1000);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.9';
    for (let index = 0; index < state.length; index++) {
      for (const replacement of new Set([alphabet[index % alphabet.length]!, 'A', '9', '_'])) {
        if (replacement === state[index]) continue;
        const tampered = state.slice(0, index) + replacement + state.slice(index + 1);
        expectInvalid(refusal(() => states.open(tampered, binding, NOW)));
      }
    }
  });

  it('refuses a state longer than the bound before looking at it', () => {
    const state = states.seal(binding, states.newId(), NOW + 1000);
    expectInvalid(refusal(() => states.open(`${state}${'A'.repeat(200)}`, binding, NOW)));
  });

  it('never verifies an arbitrary value and throws nothing but the -32602', () => {
    const sealedLike = fc
      .tuple(
        fc.stringMatching(/^[A-Za-z0-9_-]{22}$/),
        fc.stringMatching(/^[0-9]{1,15}$/),
        fc.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      )
      .map(([id, expiry, mac]) => `v1.${id}.${expiry}.${mac}`);
    fc.assert(
      fc.property(
        fc.oneof(fc.string(), fc.string({ unit: 'grapheme' }), sealedLike, fc.anything()),
        (state) => {
          expectInvalid(refusal(() => states.open(state, binding, NOW)));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('refuses a key shorter than 32 bytes', () => {
    expect(() => createRequestStates(randomBytes(16))).toThrow(RangeError);
  });
});

describe('argumentsDigest', () => {
  it('is the same for the same arguments in any key order, and differs for other values', () => {
    const a = argumentsDigest({ path: '/tmp', options: { force: true, depth: 2 } }, 64);
    const b = argumentsDigest({ options: { depth: 2, force: true }, path: '/tmp' }, 64);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(b).toBe(a);
    expect(argumentsDigest({ path: '/tmp', options: { force: false, depth: 2 } }, 64)).not.toBe(a);
    expect(argumentsDigest(undefined, 64)).toBe(argumentsDigest({}, 64));
  });

  it('is undefined for arguments that are not an object or nest deeper than the limit', () => {
    expect(argumentsDigest([1], 64)).toBeUndefined();
    expect(argumentsDigest({ a: { b: { c: 1 } } }, 2)).toBeUndefined();
    expect(argumentsDigest({ a: { b: 1 } }, 2)).toMatch(/^[0-9a-f]{64}$/);
  });
});
