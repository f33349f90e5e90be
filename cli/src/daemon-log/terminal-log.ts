/**
 * The daemon's log lines as a person reads them in the terminal of `tuttid` (without
 * `--json`): one short line per line logged instead of pino's JSON (`12:03:04 warning
 * connector broken: upstream ended (exit code 2)`), and a line that keeps
 * coming (a failing connector warns at every retry, forever) is shown once, then again
 * with its count at the 2nd, 4th, 8th, ... time, and its final count when the daemon stops.
 * The log file keeps every line as it was.
 */
import { printable } from '../printable.js';

/** What pino's levels are called here. */
const LEVEL_NAMES: Readonly<Record<number, string>> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warning',
  50: 'error',
  60: 'fatal',
};

/** Most distinct lines counted; beyond it the oldest is forgotten. */
const MAX_COUNTED = 1000;

/** The human form of pino's JSON lines, with repeats counted. */
export interface TerminalLog {
  /** Takes one JSON line of pino (as a pino destination does) and maybe prints it. */
  write(line: string): void;
  /** The lines repeated since their count was last shown, with their count now. */
  repeats(): string[];
}

interface Counted {
  readonly text: string;
  count: number;
  shown: number;
}

function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return String(value);
  if (value && typeof value === 'object' && typeof (value as Error).message === 'string') {
    return (value as Error).message;
  }
  return undefined;
}

/** Who the line is about: a connector, a session, a plugin, Node itself. */
function subjectOf(entry: Record<string, unknown>): string {
  if (typeof entry.connector === 'string') return `connector ${entry.connector}: `;
  if (typeof entry.session === 'string') return `session ${entry.session}: `;
  if (typeof entry.plugin === 'string') return `plugin ${entry.plugin}: `;
  if (entry.component === 'node') return 'node: ';
  return '';
}

/** The line a person reads, and what makes two lines "the same" for counting. */
function humanLine(entry: Record<string, unknown>): { text: string; key: string } {
  const level = LEVEL_NAMES[entry.level as number] ?? String(entry.level);
  const subject = subjectOf(entry);
  const message = textOf(entry.msg) ?? '';
  const detail = textOf(entry.reason) ?? textOf(entry.err) ?? textOf(entry.detail);
  const code = typeof entry.code === 'string' ? ` [${entry.code}]` : '';
  const text = `${level} ${subject}${message}${detail ? ` (${detail})` : ''}${code}`;
  return {
    text: `${clockOf(entry.time)}${printable(text)}`,
    key: `${level}|${subject}|${message}|${code}`,
  };
}

/** `HH:MM:SS ` of pino's `time` (ms since the epoch), local time. */
function clockOf(time: unknown): string {
  return typeof time === 'number' ? `${new Date(time).toTimeString().slice(0, 8)} ` : '';
}

const isPowerOfTwo = (n: number) => (n & (n - 1)) === 0;

/**
 * A terminal log that prints through `print` (each call one line with its newline).
 * @example const terminal = createTerminalLog((text) => process.stderr.write(text));
 */
export function createTerminalLog(print: (text: string) => void): TerminalLog {
  const counted = new Map<string, Counted>();
  const repeated = (entry: Counted, suffix = '') =>
    `${entry.text} (repeated ${entry.count} times${suffix})`;
  return {
    write(line) {
      let entry: Record<string, unknown>;
      try {
        entry = JSON.parse(line) as Record<string, unknown>;
      } catch {
        print(`${printable(line.trimEnd())}\n`);
        return;
      }
      const { text, key } = humanLine(entry);
      const seen = counted.get(key);
      if (!seen) {
        if (counted.size >= MAX_COUNTED) counted.delete(counted.keys().next().value as string);
        counted.set(key, { text, count: 1, shown: 1 });
        print(`${text}\n`);
        return;
      }
      seen.count += 1;
      if (isPowerOfTwo(seen.count)) {
        seen.shown = seen.count;
        print(`${repeated(seen)}\n`);
      }
    },
    repeats() {
      const lines: string[] = [];
      for (const entry of counted.values()) {
        if (entry.count > entry.shown) {
          entry.shown = entry.count;
          lines.push(repeated(entry, ' in all'));
        }
      }
      return lines;
    },
  };
}
