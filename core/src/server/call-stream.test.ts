import type { ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { createCallStream, progressNotification } from './call-stream.js';

/** The parts of a ServerResponse the stream uses, recording what was written. */
function fakeResponse() {
  const res = {
    head: undefined as number | undefined,
    written: [] as string[],
    writableLength: 0,
    writableEnded: false,
    destroyed: false,
    writeHead(status: number) {
      res.head = status;
    },
    write(chunk: string) {
      res.written.push(chunk);
      return true;
    },
    end(chunk: string | Buffer) {
      res.written.push(String(chunk));
      res.writableEnded = true;
    },
    on: () => undefined,
  };
  return res;
}

describe('a call stream', () => {
  it('starts with its first message, and takes the response over once', () => {
    const res = fakeResponse();
    let takeOvers = 0;
    const stream = createCallStream(res as unknown as ServerResponse, {
      takeOver: () => {
        takeOvers += 1;
      },
      keepAliveMs: 0,
      bufferLimit: 10,
    });
    expect(stream.started).toBe(false);
    expect(stream.send({ a: 1 })).toBe(true);
    expect(stream.send({ b: 2 })).toBe(true);
    stream.end('{"id":1}');
    expect(stream.send({ late: true })).toBe(false);
    expect([res.head, takeOvers]).toEqual([200, 1]);
    expect(res.written).toEqual([
      'event: message\ndata: {"a":1}\n\n',
      'event: message\ndata: {"b":2}\n\n',
      'event: message\ndata: {"id":1}\n\n',
    ]);
  });

  it('drops droppable messages while the client does not read, never the others', () => {
    const res = fakeResponse();
    const stream = createCallStream(res as unknown as ServerResponse, {
      takeOver: () => undefined,
      keepAliveMs: 0,
      bufferLimit: 10,
    });
    stream.send({ first: 1 }, true);
    res.writableLength = 11;
    expect(stream.send({ progress: 2 }, true)).toBe(false);
    expect(stream.send({ question: 3 })).toBe(true);
    expect(res.written).toHaveLength(2);
  });

  it('never starts once sealed unstarted: a late message cannot race the plain answer', () => {
    const res = fakeResponse();
    const stream = createCallStream(res as unknown as ServerResponse, {
      takeOver: () => undefined,
      keepAliveMs: 0,
      bufferLimit: 10,
    });
    stream.seal();
    expect(stream.send({ late: true })).toBe(false);
    expect(res.head).toBeUndefined();
  });
});

describe('progressNotification', () => {
  it('keeps the known members only, with the caller’s token and a cut message', () => {
    expect(
      progressNotification('t', { progress: 1, total: 2, message: 'abcdef', extra: 1 } as never, 3),
    ).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 't', progress: 1, total: 2, message: 'abc' },
    });
    expect(progressNotification(7, { progress: 1, total: Number.NaN }, 3)).toEqual({
      jsonrpc: '2.0',
      method: 'notifications/progress',
      params: { progressToken: 7, progress: 1 },
    });
    expect(progressNotification(7, { progress: '1' }, 3)).toBeUndefined();
  });
});
