/**
 * The daemon's tracer: what the call path, the session turns and the upstream leg use to
 * make spans, whatever exports them. With no OTLP endpoint it is the pass-through tracer
 * (pass-through.ts): nothing is recorded and a span's context is its parent's, so a
 * caller's trace still reaches the upstream. With one, spans are made and exported by the
 * OpenTelemetry SDK (otel-tracer.ts), which is loaded only then.
 */
import type { TraceContext } from './trace-context.js';

/** Values a span attribute takes. */
export type AttributeValue = string | number | boolean;

/** A span's attributes. */
export type Attributes = Readonly<Record<string, AttributeValue | undefined>>;

/** The role of a span (OpenTelemetry SpanKind). */
export type SpanKind = 'server' | 'client' | 'internal';

/** What a span starts with. */
export interface SpanStart {
  readonly name: string;
  readonly kind: SpanKind;
  /** The parent, from the caller or from a span of this daemon; none: a new trace. */
  readonly parent?: TraceContext;
  /** Contexts the span is linked to without being their child (an HTTP `traceparent`). */
  readonly links?: readonly TraceContext[];
  readonly attributes?: Attributes;
}

/** A started span. */
export interface Span {
  /**
   * What a child of this span, or the next hop, is given: a new span's context when
   * recording, the parent's when passing through, undefined when there is neither.
   */
  readonly context: TraceContext | undefined;
  /** Adds attributes. */
  set(attributes: Attributes): void;
  /** Marks the span failed: `errorType` becomes `error.type`, `message` the status text. */
  fail(errorType: string, message?: string): void;
  /** Ends the span (once; later calls do nothing). */
  end(): void;
}

/** Makes spans and sends them on. */
export interface Tracer {
  /** True when spans are recorded and exported. */
  readonly recording: boolean;
  /** Starts a span. */
  start(start: SpanStart): Span;
  /** Exports what was ended so far (waits at most the exporter's timeout). */
  flush(): Promise<void>;
  /** Flushes and stops exporting. */
  close(): Promise<void>;
}
