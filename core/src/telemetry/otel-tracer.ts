/**
 * The tracer when an OTLP endpoint is set: spans made by the OpenTelemetry SDK and sent
 * as OTLP/HTTP JSON by its exporter, through a processor that batches, bounds its queue
 * (dropping the oldest) and never blocks a call. Loaded with a dynamic import by
 * open-tracer.ts only then, so a daemon without an endpoint loads none of it.
 */
import {
  type Attributes as OtelAttributes,
  createTraceState,
  type Link,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
} from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { resourceFromAttributes } from '@opentelemetry/resources';
import {
  ParentBasedSampler,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from '@opentelemetry/sdk-trace';
import { createDropOldestProcessor } from './drop-oldest-processor.js';
import type { TraceContext } from './trace-context.js';
import type { Attributes, Span, SpanKind as Kind, Tracer } from './types.js';

/** Options of {@link createOtelTracer}. */
export interface OtelTracerOptions {
  /** The OTLP/HTTP traces URL (`.../v1/traces`). */
  readonly url: string;
  /** `service.name` of the spans' resource. */
  readonly serviceName: string;
  readonly serviceVersion: string;
  /** Longest a span waits before it is exported, in ms (default 1,000). */
  readonly exportDelayMs?: number;
  /** Most spans waiting to be exported; past it the oldest are dropped (default 2,048). */
  readonly maxQueue?: number;
  /** Longest one export request may take, in ms (default 5,000). */
  readonly exportTimeoutMs?: number;
  /** Told when spans were dropped. */
  readonly onDropped?: (count: number, why: string) => void;
  /** Share of new traces recorded (default 1); a parent's decision is kept. */
  readonly sampleRatio?: number;
}

const KINDS: Record<Kind, SpanKind> = {
  server: SpanKind.SERVER,
  client: SpanKind.CLIENT,
  internal: SpanKind.INTERNAL,
};

function otelAttributes(attributes: Attributes | undefined): OtelAttributes | undefined {
  if (!attributes) return undefined;
  const out: OtelAttributes = {};
  for (const key in attributes) {
    const value = attributes[key];
    if (value !== undefined) out[key] = value;
  }
  return out;
}

function spanContextOf(context: TraceContext) {
  return {
    traceId: context.traceId,
    spanId: context.spanId,
    traceFlags: context.flags,
    isRemote: true,
    ...(context.state !== undefined && { traceState: createTraceState(context.state) }),
  };
}

/** A recording tracer exporting to `options.url`. */
export function createOtelTracer(options: OtelTracerOptions): Tracer {
  const exporter = new OTLPTraceExporter({
    url: options.url,
    timeoutMillis: options.exportTimeoutMs ?? 5000,
  });
  const ratio = options.sampleRatio ?? 1;
  const provider = new TracerProvider({
    ...(ratio < 1 && {
      sampler: new ParentBasedSampler({ root: new TraceIdRatioBasedSampler(ratio) }),
    }),
    resource: resourceFromAttributes({
      'service.name': options.serviceName,
      'service.version': options.serviceVersion,
    }),
    spanProcessors: [
      createDropOldestProcessor(exporter, {
        ...(options.exportDelayMs !== undefined && { delayMs: options.exportDelayMs }),
        ...(options.maxQueue !== undefined && { maxQueue: options.maxQueue }),
        ...(options.onDropped && { onDropped: options.onDropped }),
      }),
    ],
  });
  const tracer = provider.getTracer('tutti-connector', options.serviceVersion);
  let closing: Promise<void> | undefined;
  return {
    recording: true,
    start({ name, kind, parent, links, attributes }) {
      const parentContext = parent
        ? trace.setSpanContext(ROOT_CONTEXT, spanContextOf(parent))
        : ROOT_CONTEXT;
      const otelLinks: Link[] | undefined = links?.map((link) => ({
        context: spanContextOf(link),
      }));
      const span = tracer.startSpan(
        name,
        {
          kind: KINDS[kind],
          ...(attributes && { attributes: otelAttributes(attributes) }),
          ...(otelLinks && { links: otelLinks }),
        },
        parentContext,
      );
      const own = span.spanContext();
      const state = own.traceState?.serialize();
      const context: TraceContext = {
        traceId: own.traceId,
        spanId: own.spanId,
        flags: own.traceFlags,
        ...(state && { state }),
      };
      const handle: Span = {
        context,
        set(more) {
          const values = otelAttributes(more);
          if (values) span.setAttributes(values);
        },
        fail(errorType, message) {
          span.setAttribute('error.type', errorType);
          span.setStatus({
            code: SpanStatusCode.ERROR,
            ...(message !== undefined && { message }),
          });
        },
        end() {
          span.end();
        },
      };
      return handle;
    },
    flush: () => provider.forceFlush(),
    close() {
      // A collector that is down holds the stop up for one export timeout at most.
      closing ??= new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, options.exportTimeoutMs ?? 5000);
        timer.unref();
        provider.shutdown().then(
          () => {
            clearTimeout(timer);
            resolve();
          },
          () => resolve(),
        );
      });
      return closing;
    },
  };
}
