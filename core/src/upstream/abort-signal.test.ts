import { describe, expect, it } from 'vitest';
import { CallCancellation } from '../server/in-flight-calls.js';
import { abortSignalOf } from './abort-signal.js';

describe('abortSignalOf', () => {
  it('passes an AbortSignal and undefined through unchanged', () => {
    const controller = new AbortController();
    expect(abortSignalOf(controller.signal).signal).toBe(controller.signal);
    expect(abortSignalOf(undefined).signal).toBeUndefined();
  });

  it('gives an AbortSignal that aborts with the call signal and its reason', () => {
    const call = new CallCancellation();
    const { signal } = abortSignalOf(call);
    expect(signal?.aborted).toBe(false);
    call.abort('cancelled');
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBe('cancelled');
  });

  it('is aborted at once for an aborted call signal', () => {
    const call = new CallCancellation();
    call.abort('shutdown');
    const { signal } = abortSignalOf(call);
    expect(signal?.aborted).toBe(true);
    expect(signal?.reason).toBe('shutdown');
  });

  it('no longer follows the call signal once released', () => {
    const call = new CallCancellation();
    const { signal, release } = abortSignalOf(call);
    release();
    call.abort('cancelled');
    expect(signal?.aborted).toBe(false);
  });
});
