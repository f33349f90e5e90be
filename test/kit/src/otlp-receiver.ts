/**
 * A loopback OTLP/HTTP trace receiver: what a collector is to the daemon, for tests. It
 * takes `POST /v1/traces` in the OTLP JSON encoding, keeps every span flattened (ids as
 * hex, attributes as plain values, kind as a name) and answers 200 with an empty partial
 * success. A protobuf body is refused with 415, so an exporter sending it fails loudly.
 */
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One received span. */
export interface ReceivedSpan {
  readonly traceId: string;
  readonly spanId: string;
  /** Absent for a root span. */
  readonly parentSpanId?: string;
  readonly name: string;
  readonly kind: 'internal' | 'server' | 'client' | 'producer' | 'consumer' | 'unspecified';
  readonly attributes: Readonly<Record<string, unknown>>;
  /** `ok`, `error` or `unset`, and the status message. */
  readonly status: { readonly code: 'unset' | 'ok' | 'error'; readonly message?: string };
  readonly links: readonly { readonly traceId: string; readonly spanId: string }[];
  /** The `service.name` of its resource. */
  readonly service?: string;
  readonly startMs: number;
  readonly endMs: number;
}

/** A running receiver. */
export interface OtlpReceiver {
  /** The endpoint to set as OTEL_EXPORTER_OTLP_ENDPOINT (no path). */
  readonly endpoint: string;
  /** The traces URL (`<endpoint>/v1/traces`). */
  readonly tracesUrl: string;
  /** Every span received so far, in arrival order. */
  readonly spans: readonly ReceivedSpan[];
  /** Export requests received (bodies of any kind). */
  readonly requests: number;
  /** Headers of the last export request. */
  readonly lastHeaders: Readonly<Record<string, string | string[] | undefined>>;
  /** Resolves with the spans once `done(spans)` holds; rejects after `timeoutMs`. */
  waitFor(
    done: (spans: readonly ReceivedSpan[]) => boolean,
    timeoutMs?: number,
  ): Promise<readonly ReceivedSpan[]>;
  close(): Promise<void>;
}

const KINDS = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'] as const;
const STATUS = ['unset', 'ok', 'error'] as const;

type AnyValue = {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
};

function plain(value: AnyValue | undefined): unknown {
  if (!value) return undefined;
  if (value.stringValue !== undefined) return value.stringValue;
  if (value.boolValue !== undefined) return value.boolValue;
  if (value.intValue !== undefined) return Number(value.intValue);
  if (value.doubleValue !== undefined) return value.doubleValue;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain);
  return undefined;
}

function attributesOf(list: { key: string; value: AnyValue }[] | undefined) {
  const out: Record<string, unknown> = {};
  for (const { key, value } of list ?? []) out[key] = plain(value);
  return out;
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

// OTLP JSON: ids are hex strings; some encoders send base64: both are read as hex.
function hexId(id: unknown): string {
  if (typeof id !== 'string') return '';
  return /^[0-9a-f]+$/i.test(id) ? id.toLowerCase() : Buffer.from(id, 'base64').toString('hex');
}

function nanosToMs(value: unknown): number {
  return Number(BigInt(String(value ?? 0)) / 1_000_000n);
}

/** Flattens one OTLP JSON export request. */
function spansOf(request: unknown): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  const resourceSpans = (request as { resourceSpans?: unknown[] }).resourceSpans ?? [];
  for (const resourceSpan of resourceSpans as {
    resource?: { attributes?: { key: string; value: AnyValue }[] };
    scopeSpans?: { spans?: Record<string, unknown>[] }[];
  }[]) {
    const service = attributesOf(resourceSpan.resource?.attributes)['service.name'];
    for (const scope of resourceSpan.scopeSpans ?? []) {
      for (const span of scope.spans ?? []) {
        const parent = hexId(span.parentSpanId);
        const status = (span.status ?? {}) as { code?: number; message?: string };
        out.push({
          traceId: hexId(span.traceId),
          spanId: hexId(span.spanId),
          ...(parent && { parentSpanId: parent }),
          name: String(span.name),
          kind: KINDS[Number(span.kind ?? 0)] ?? 'unspecified',
          attributes: attributesOf(span.attributes as { key: string; value: AnyValue }[]),
          status: {
            code: STATUS[Number(status.code ?? 0)] ?? 'unset',
            ...(status.message && { message: status.message }),
          },
          links: ((span.links ?? []) as { traceId: string; spanId: string }[]).map((link) => ({
            traceId: hexId(link.traceId),
            spanId: hexId(link.spanId),
          })),
          ...(typeof service === 'string' && { service }),
          startMs: nanosToMs(span.startTimeUnixNano),
          endMs: nanosToMs(span.endTimeUnixNano),
        });
      }
    }
  }
  return out;
}

/**
 * Starts a receiver on 127.0.0.1.
 * @example const otlp = await startOtlpReceiver(); env.OTEL_EXPORTER_OTLP_ENDPOINT = otlp.endpoint;
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  let requests = 0;
  let lastHeaders: Record<string, string | string[] | undefined> = {};
  const waiters = new Set<() => void>();
  const server = createServer((request, response) => {
    void (async () => {
      const body = await bodyOf(request);
      requests += 1;
      lastHeaders = { ...request.headers };
      if (request.method !== 'POST' || request.url !== '/v1/traces') {
        response.writeHead(404).end();
        return;
      }
      if (!String(request.headers['content-type']).startsWith('application/json')) {
        response.writeHead(415).end();
        return;
      }
      try {
        spans.push(...spansOf(JSON.parse(body)));
      } catch {
        response.writeHead(400).end();
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const wake of waiters) wake();
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    tracesUrl: `${endpoint}/v1/traces`,
    get spans() {
      return spans;
    },
    get requests() {
      return requests;
    },
    get lastHeaders() {
      return lastHeaders;
    },
    waitFor(done, timeoutMs = 15_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!done(spans)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(spans);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(
            new Error(
              `the OTLP receiver did not get the spans within ${timeoutMs} ms (${spans.length} received: ${spans.map((span) => span.name).join(', ')})`,
            ),
          );
        }, timeoutMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
