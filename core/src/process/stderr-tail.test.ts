import { describe, expect, it } from 'vitest';
import { createStderrTail } from './stderr-tail.js';

describe('StderrTail', () => {
  it('keeps only the most recent bytes across many chunks', () => {
    const tail = createStderrTail(10);
    for (const chunk of ['abc', 'defg', 'hijkl', 'mn']) tail.push(chunk);
    expect(tail.text()).toBe('efghijklmn');
    expect(tail.size).toBe(10);
  });

  it('keeps the end of a single chunk larger than the bound', () => {
    const tail = createStderrTail(4);
    tail.push('x');
    tail.push(Buffer.from('0123456789'));
    expect(tail.text()).toBe('6789');
  });
});
