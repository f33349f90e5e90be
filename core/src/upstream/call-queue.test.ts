import { describe, expect, it, vi } from 'vitest';
import { TuttiError } from '../errors/index.js';
import { createCallQueue } from './call-queue.js';

/** A call the test finishes by hand. */
function deferred() {
  let finish: (value: string) => void = () => {};
  const promise = new Promise<string>((resolve) => (finish = resolve));
  return { promise, finish };
}

const cancelled = () => new Error('cancelled');

describe('createCallQueue', () => {
  it('sends one call at a time, in arrival order', async () => {
    const queue = createCallQueue();
    const sent: string[] = [];
    const calls = ['a', 'b', 'c'].map((name) => ({ name, ...deferred() }));
    const results = calls.map((call) =>
      queue.run(
        () => {
          sent.push(call.name);
          return call.promise;
        },
        undefined,
        cancelled,
      ),
    );
    await Promise.resolve();
    expect(sent).toEqual(['a']);
    expect(queue.waiting).toBe(2);
    calls[0]!.finish('A');
    expect(await results[0]).toBe('A');
    await Promise.resolve();
    expect(sent).toEqual(['a', 'b']);
    calls[1]!.finish('B');
    calls[2]!.finish('C');
    expect(await Promise.all(results)).toEqual(['A', 'B', 'C']);
    expect(queue.waiting).toBe(0);
  });

  it('takes a waiting call that is cancelled out of the queue, and never sends it', async () => {
    const queue = createCallQueue();
    const first = deferred();
    const sent: string[] = [];
    const running = queue.run(() => first.promise, undefined, cancelled);
    const controller = new AbortController();
    const waiting = queue.run(
      async () => {
        sent.push('cancelled one');
        return 'x';
      },
      controller.signal,
      cancelled,
    );
    const after = queue.run(
      async () => {
        sent.push('after');
        return 'y';
      },
      undefined,
      cancelled,
    );
    controller.abort();
    await expect(waiting).rejects.toThrow('cancelled');
    expect(queue.waiting).toBe(1);
    first.finish('done');
    expect(await running).toBe('done');
    expect(await after).toBe('y');
    expect(sent).toEqual(['after']);
  });

  it('goes on after a call that failed', async () => {
    const queue = createCallQueue();
    const failing = queue.run(
      () => Promise.reject(new Error('upstream said no')),
      undefined,
      cancelled,
    );
    const next = queue.run(async () => 'next', undefined, cancelled);
    await expect(failing).rejects.toThrow('upstream said no');
    expect(await next).toBe('next');
  });

  it('refuses a call whose signal already aborted', async () => {
    const queue = createCallQueue();
    await expect(queue.run(async () => 'x', AbortSignal.abort(), cancelled)).rejects.toThrow(
      'cancelled',
    );
    expect(await queue.run(async () => 'free', undefined, cancelled)).toBe('free');
  });

  it('lets an unanswered call drain before the next is sent, and an answered or failed one not', async () => {
    vi.useFakeTimers();
    try {
      const queue = createCallQueue(1000);
      const sent: string[] = [];
      const run = (name: string, outcome: () => Promise<string>) =>
        queue.run(
          () => {
            sent.push(name);
            return outcome();
          },
          undefined,
          cancelled,
        );
      const timedOut = run('a', () =>
        Promise.reject(
          new TuttiError('TUTTI_ERR_UPSTREAM_CALL_TIMEOUT', {
            target: 't',
            tool: 'a',
            timeoutMs: 1,
          }),
        ),
      );
      const failed = run('b', () => Promise.reject(new Error('refused')));
      const answered = run('c', async () => 'C');
      // Both rejections are expected before they happen, so neither goes unhandled.
      const timedOutChecked = expect(timedOut).rejects.toThrow();
      const failedChecked = expect(failed).rejects.toThrow('refused');
      await timedOutChecked;
      await vi.advanceTimersByTimeAsync(999);
      expect(sent).toEqual(['a']);
      await vi.advanceTimersByTimeAsync(1);
      await failedChecked;
      // A failure that was an answer does not hold the queue.
      expect(await answered).toBe('C');
      expect(sent).toEqual(['a', 'b', 'c']);
    } finally {
      vi.useRealTimers();
    }
  });
});
