import { describe, expect, it } from 'vitest';
import { upstreamReason } from './upstream-reason.js';

describe('upstreamReason', () => {
  it('puts an upstream message on one line', () => {
    expect(upstreamReason('no such issue:\n  #42\r\n')).toBe('no such issue: #42');
  });

  it('masks a bearer token and a credential assignment the upstream echoed', () => {
    const reason = upstreamReason('refused Bearer abcdef0123456789 with API_KEY=sk-live-123456');
    expect(reason).toBe('refused Bearer [redacted] with API_KEY=[redacted]');
  });

  it('cuts a long message to 300 characters, the closing "…" included', () => {
    const reason = upstreamReason('x'.repeat(1_000));
    expect(reason).toBe(`${'x'.repeat(299)}…`);
  });

  it('says so when the upstream gave no message', () => {
    expect(upstreamReason(' \n')).toBe('no reason given');
    expect(upstreamReason(undefined)).toBe('no reason given');
  });
});
