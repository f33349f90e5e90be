import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  checkBaggage,
  checkTracestate,
  formatTraceparent,
  newSpanId,
  newTraceId,
  parseTraceparent,
  readTraceContext,
} from './trace-context.js';

const TRACE = '4bf92f3577b34da6a3ce929d0e0e4736';
const SPAN = '00f067aa0ba902b7';

describe('W3C trace context', () => {
  it('reads a traceparent and writes it back the same', () => {
    const value = `00-${TRACE}-${SPAN}-01`;
    expect(parseTraceparent(value)).toEqual({ traceId: TRACE, spanId: SPAN, flags: 1 });
    expect(formatTraceparent(parseTraceparent(value)!)).toBe(value);
  });

  it('drops malformed traceparents rather than repair them', () => {
    for (const bad of [
      undefined,
      42,
      '',
      `00-${TRACE}-${SPAN}`,
      `00-${TRACE.toUpperCase()}-${SPAN}-01`,
      `00-${'0'.repeat(32)}-${SPAN}-01`,
      `00-${TRACE}-${'0'.repeat(16)}-01`,
      `ff-${TRACE}-${SPAN}-01`,
      `00-${TRACE}-${SPAN}-01-extra`,
      ` 00-${TRACE}-${SPAN}-01`,
    ]) {
      expect(parseTraceparent(bad), String(bad)).toBeUndefined();
    }
  });

  it('reads the first four fields of a later version, as the spec asks', () => {
    expect(parseTraceparent(`01-${TRACE}-${SPAN}-00-what-comes-next`)).toEqual({
      traceId: TRACE,
      spanId: SPAN,
      flags: 0,
    });
  });

  it('keeps a well-formed tracestate and drops a malformed one', () => {
    expect(checkTracestate('rojo=00f067aa0ba902b7, congo=t61rcWkgMzE')).toBe(
      'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE',
    );
    expect(checkTracestate('tenant@vendor=x')).toBe('tenant@vendor=x');
    for (const bad of [
      '',
      'novalue',
      'Upper=x',
      'a=b,a=c',
      'a=b=c,',
      'a=tab\there',
      'x'.repeat(600),
    ]) {
      expect(checkTracestate(bad), bad).toBeUndefined();
    }
    const many = Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(',');
    expect(checkTracestate(many)).toBeUndefined();
    expect(readTraceContext(`00-${TRACE}-${SPAN}-01`, 'bad state')).toEqual({
      traceId: TRACE,
      spanId: SPAN,
      flags: 1,
    });
  });

  it('passes baggage within the header limit only', () => {
    expect(checkBaggage('userId=alice,serverNode=DF%2028;p=1')).toBe(
      'userId=alice,serverNode=DF%2028;p=1',
    );
    expect(checkBaggage('no equals')).toBeUndefined();
    expect(checkBaggage(`k=${'v'.repeat(9000)}`)).toBeUndefined();
  });

  it('makes ids that parse back', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 255 }), (flags) => {
        const context = { traceId: newTraceId(), spanId: newSpanId(), flags };
        expect(parseTraceparent(formatTraceparent(context))).toEqual(context);
      }),
      { numRuns: 500 },
    );
  });
});
