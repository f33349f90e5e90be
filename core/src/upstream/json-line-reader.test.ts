import { describe, expect, it } from 'vitest';
import { createJsonLineReader, type JsonLineReader, LineTooLongError } from './json-line-reader.js';

function drain(reader: JsonLineReader): unknown[] {
  const out: unknown[] = [];
  for (let line = reader.next(); line; line = reader.next()) out.push(line.value);
  return out;
}

describe('JsonLineReader', () => {
  it('yields each complete line once, across chunk boundaries and CRLF endings', () => {
    const reader = createJsonLineReader();
    reader.append(Buffer.from('{"a":1}\n{"b":'));
    expect(drain(reader)).toEqual([{ a: 1 }]);
    reader.append(Buffer.from('"é"}\r\n[1,2]\n'));
    expect(drain(reader)).toEqual([{ b: 'é' }, [1, 2]]);
    expect(reader.next()).toBeUndefined();
  });

  it('keeps a multi-byte character split between chunks intact', () => {
    const bytes = Buffer.from('{"t":"日本"}\n');
    const reader = createJsonLineReader();
    reader.append(bytes.subarray(0, 8));
    reader.append(bytes.subarray(8));
    expect(drain(reader)).toEqual([{ t: '日本' }]);
  });

  it('skips lines that are not JSON, as the SDK reader does', () => {
    const reader = createJsonLineReader();
    reader.append(Buffer.from('server starting...\n{"ok":true}\n\n'));
    expect(drain(reader)).toEqual([{ ok: true }]);
  });

  it('throws and forgets everything when unfinished bytes pass the bound', () => {
    const reader = createJsonLineReader(16);
    reader.append(Buffer.from('{"a":'));
    expect(() => reader.append(Buffer.from('"0123456789abc"'))).toThrow(LineTooLongError);
    reader.append(Buffer.from('{"b":2}\n'));
    expect(drain(reader)).toEqual([{ b: 2 }]);
  });

  it('bounds each line, not a chunk: a line of exactly the bound passes, one byte more does not', () => {
    const reader = createJsonLineReader(16);
    const full = '"0123456789abcd"'; // 16 bytes
    reader.append(Buffer.from(`${full}\n${full}\n"tail`));
    expect(drain(reader)).toEqual(['0123456789abcd', '0123456789abcd']);
    reader.append(Buffer.from('"\n'));
    expect(drain(reader)).toEqual(['tail']);

    const error = (() => {
      try {
        reader.append(Buffer.from(`{"x":1}\n${full}0\n`));
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(LineTooLongError);
    expect((error as LineTooLongError).limit).toBe(16);
  });
});
