import { Writable } from 'node:stream';
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { lazyChildLoggerFactory } from './lazy-child-logger.js';
import { createServerLogger } from './logger.js';

function captured(): { logger: FastifyBaseLogger; lines: () => Record<string, unknown>[] } {
  const out: string[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      out.push(String(chunk));
      done();
    },
  });
  const logger = createServerLogger(pino({ level: 'info' }, sink)) as FastifyBaseLogger;
  return { logger, lines: () => out.map((line) => JSON.parse(line)) };
}

describe('lazyChildLoggerFactory', () => {
  it('makes no child until the request logs, then logs with its bindings, redacted', () => {
    const { logger, lines } = captured();
    const child = vi.spyOn(logger, 'child');
    const log = lazyChildLoggerFactory(logger, { reqId: 'req-1' }, {});
    expect(log.level).toBe('info');
    expect(child).not.toHaveBeenCalled();

    log.warn({ token: 's3cret' }, 'request refused');
    log.info('again');
    expect(child).toHaveBeenCalledTimes(1);
    expect(lines()).toMatchObject([
      { reqId: 'req-1', msg: 'request refused', token: '[redacted]' },
      { reqId: 'req-1', msg: 'again' },
    ]);
  });

  it('keeps the levels of the parent and of the child options', () => {
    const { logger, lines } = captured();
    expect(lazyChildLoggerFactory(logger, { reqId: 'a' }, { level: 'error' }).level).toBe('error');
    const quiet = lazyChildLoggerFactory(logger, { reqId: 'b' }, { level: 'error' });
    quiet.warn('not written');
    quiet.error('written');
    quiet.child({ step: 'inner' }).error('nested');
    expect(lines()).toMatchObject([
      { reqId: 'b', msg: 'written' },
      { reqId: 'b', step: 'inner', msg: 'nested' },
    ]);
  });
});
