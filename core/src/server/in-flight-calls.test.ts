import { describe, expect, it } from 'vitest';
import { CallCancellation } from './in-flight-calls.js';

describe('CallCancellation', () => {
  it('runs each listener once, in the order added, with the first reason', () => {
    const signal = new CallCancellation();
    const seen: string[] = [];
    signal.addEventListener('abort', () => seen.push(`a:${signal.reason}`));
    signal.addEventListener('abort', () => seen.push(`b:${signal.reason}`));
    expect(signal.aborted).toBe(false);
    signal.abort('cancelled');
    signal.abort('shutdown');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('cancelled');
    expect(seen).toEqual(['a:cancelled', 'b:cancelled']);
  });

  it('does not run a removed listener, nor one added after the abort', () => {
    const signal = new CallCancellation();
    const seen: string[] = [];
    const removed = () => seen.push('removed');
    signal.addEventListener('abort', removed);
    signal.addEventListener('abort', () => seen.push('kept'));
    signal.removeEventListener('abort', removed);
    signal.abort('disconnected');
    signal.addEventListener('abort', () => seen.push('late'));
    signal.abort('again');
    expect(seen).toEqual(['kept']);
  });
});
