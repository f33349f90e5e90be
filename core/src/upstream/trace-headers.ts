/**
 * The trace context of an HTTP upstream request in its headers too: MCP carries it in
 * `params._meta` (SEP-414), and a server's HTTP instrumentation reads the `traceparent`,
 * `tracestate` (and `baggage`, when the daemon passes it) headers. The fetch of an HTTP upstream copies them from the body it
 * sends; a body without them costs one substring search.
 */
import type { FetchLike } from '@modelcontextprotocol/client';

const TRACEPARENT = /"traceparent":"([0-9a-f]{2}-[0-9a-f]{32}-[0-9a-f]{16}-[0-9a-f]{2})"/;
const TRACESTATE = /"tracestate":"([^"\\]{1,512})"/;
const BAGGAGE = /"baggage":"([^"\\]{1,8192})"/;

/** `fetch` that adds the trace context headers its JSON-RPC body carries. */
export function withTraceHeaders(fetch: FetchLike): FetchLike {
  return (url, init) => {
    const body = init?.body;
    if (typeof body !== 'string' || !body.includes('"traceparent":"')) return fetch(url, init);
    const parent = TRACEPARENT.exec(body);
    if (!parent) return fetch(url, init);
    const headers = new Headers(init?.headers);
    headers.set('traceparent', parent[1]!);
    const state = TRACESTATE.exec(body);
    if (state) headers.set('tracestate', state[1]!);
    const baggage = BAGGAGE.exec(body);
    if (baggage) headers.set('baggage', baggage[1]!);
    return fetch(url, { ...init, headers });
  };
}
