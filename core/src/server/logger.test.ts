import { Writable } from 'node:stream';
import { pino } from 'pino';
import { describe, expect, it } from 'vitest';
import { createServerLogger } from './logger.js';

describe('createServerLogger', () => {
  it('redacts authorization headers and tokens from every line', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    });
    const logger = createServerLogger(pino({ level: 'info' }, sink));
    logger.info({ req: { headers: { authorization: 'Bearer s3cret-1' } } }, 'a');
    logger.info({ headers: { authorization: 'Bearer s3cret-2' }, token: 's3cret-3' }, 'b');
    logger.info({ session: { token: 's3cret-4' } }, 'c');
    const all = lines.join('');
    expect(lines).toHaveLength(3);
    expect(all).not.toMatch(/s3cret/);
    expect(all).toContain('[redacted]');
  });
});
