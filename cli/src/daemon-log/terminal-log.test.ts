import { describe, expect, it } from 'vitest';
import { printable } from '../printable.js';
import { createTerminalLog } from './terminal-log.js';

const TIME = new Date(2026, 0, 2, 3, 4, 5).getTime();

function captured() {
  const printed: string[] = [];
  const terminal = createTerminalLog((text) => printed.push(text));
  const log = (fields: Record<string, unknown>) =>
    terminal.write(
      `${JSON.stringify({ level: 40, time: TIME, pid: 1, hostname: 'h', ...fields })}\n`,
    );
  return { printed, terminal, log };
}

describe('the terminal log', () => {
  it('prints a line as a person reads it: time, level, who, what and why', () => {
    const { printed, log } = captured();
    log({ connector: 'broken', target: 'node', reason: 'exit code 2', msg: 'upstream ended' });
    log({ level: 50, session: 's-1', err: { message: 'boom' }, msg: 'session failed' });
    log({ component: 'node', code: 'SOME_SDK_WARNING', warning: 'Warning', msg: 'be careful' });
    expect(printed).toEqual([
      '03:04:05 warning connector broken: upstream ended (exit code 2)\n',
      '03:04:05 error session s-1: session failed (boom)\n',
      '03:04:05 warning node: be careful [SOME_SDK_WARNING]\n',
    ]);
  });

  it('shows a repeated line once, then its count at the 2nd, 4th, 8th ... time, and the rest at the end', () => {
    const { printed, terminal, log } = captured();
    for (let n = 1; n <= 11; n++) {
      log({ connector: 'broken', reason: 'exit code 2', msg: 'upstream ended' });
      if (n === 3) log({ connector: 'other', msg: 'upstream ended' });
    }
    const line = '03:04:05 warning connector broken: upstream ended (exit code 2)';
    expect(printed).toEqual([
      `${line}\n`,
      `${line} (repeated 2 times)\n`,
      '03:04:05 warning connector other: upstream ended\n',
      `${line} (repeated 4 times)\n`,
      `${line} (repeated 8 times)\n`,
    ]);
    expect(terminal.repeats()).toEqual([`${line} (repeated 11 times in all)`]);
    expect(terminal.repeats()).toEqual([]);
  });

  it('counts lines with the same message about the same thing as one, whatever their reason', () => {
    const { printed, log } = captured();
    log({ connector: 'broken', reason: 'exit code 2', msg: 'upstream ended' });
    log({ connector: 'broken', reason: 'signal SIGKILL', msg: 'upstream ended' });
    expect(printed[1]).toBe(
      '03:04:05 warning connector broken: upstream ended (exit code 2) (repeated 2 times)\n',
    );
  });

  it('prints a line that is not JSON as it is, and no control character of any line', () => {
    const { printed, terminal, log } = captured();
    terminal.write('plain text\n');
    log({ msg: 'red \u001b[31mtext\u001b[0m\nnext line' });
    expect(printed).toEqual(['plain text\n', '03:04:05 warning red ?[31mtext?[0m next line\n']);
    expect(printable('a\tb\u0007c')).toBe('a b?c');
  });
});
