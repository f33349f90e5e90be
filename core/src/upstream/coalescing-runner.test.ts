import { describe, expect, it } from 'vitest';
import { createCoalescingRunner } from './coalescing-runner.js';

describe('createCoalescingRunner', () => {
  it('runs once more, not once per trigger, for a burst during a run', async () => {
    let runs = 0;
    let release: () => void = () => {};
    const runner = createCoalescingRunner(async () => {
      runs += 1;
      if (runs === 1) await new Promise<void>((resolve) => (release = resolve));
    });
    runner.trigger();
    for (let i = 0; i < 5; i += 1) runner.trigger();
    expect(runs).toBe(1);
    release();
    await runner.idle();
    expect(runs).toBe(2);
  });

  it('keeps running after a failed run', async () => {
    let runs = 0;
    const runner = createCoalescingRunner(async () => {
      runs += 1;
      if (runs === 1) throw new Error('first run fails');
    });
    runner.trigger();
    await runner.idle();
    runner.trigger();
    await runner.idle();
    expect(runs).toBe(2);
  });
});
