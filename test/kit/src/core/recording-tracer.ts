/**
 * A tracer that keeps every span it starts in memory (name, kind, parent, attributes,
 * failure, whether it ended), for tests of what core traces without an exporter.
 */
import { randomBytes } from 'node:crypto';
import type { AgentSessionHostOptions } from '@tutti/core';

/** The daemon's tracer contract, as the session host takes it. */
export type Tracer = NonNullable<AgentSessionHostOptions['tracer']>;

/** One span's identity. */
export type TraceContext = NonNullable<ReturnType<Tracer['start']>['context']>;

/** A span as the recording tracer saw it. */
export interface RecordedSpan {
  readonly name: string;
  readonly kind: Parameters<Tracer['start']>[0]['kind'];
  readonly context: TraceContext;
  /** The parent's span id; undefined for a root. */
  readonly parent: string | undefined;
  readonly attributes: Record<string, string | number | boolean | undefined>;
  /** The error type the span was failed with. */
  failed?: string;
  ended: boolean;
}

/** What {@link recordingTracer} gives. */
export interface RecordingTracer {
  readonly tracer: Tracer;
  /** Every span started, in start order. */
  readonly spans: readonly RecordedSpan[];
  /** The first span named `name`; throws naming the spans there are when none is. */
  named(name: string): RecordedSpan;
  /** Each span's name beside its parent's name, in start order. */
  tree(): [string, string | undefined][];
}

/**
 * A recording tracer: `spans` in start order, `named(name)` the first span of that name,
 * `tree()` each span's name beside its parent's name.
 *
 * @example
 * const { tracer, tree } = recordingTracer();
 * const host = new AgentSessionHost({ ...options, tracer });
 */
export function recordingTracer(): RecordingTracer {
  const spans: RecordedSpan[] = [];
  const tracer: Tracer = {
    recording: true,
    start(start) {
      const span: RecordedSpan = {
        name: start.name,
        kind: start.kind,
        context: {
          traceId: start.parent?.traceId ?? randomBytes(16).toString('hex'),
          spanId: randomBytes(8).toString('hex'),
          flags: 1,
        },
        parent: start.parent?.spanId,
        attributes: { ...start.attributes },
        ended: false,
      };
      spans.push(span);
      return {
        context: span.context,
        set: (attributes) => Object.assign(span.attributes, attributes),
        fail: (errorType) => {
          span.failed = errorType;
        },
        end: () => {
          span.ended = true;
        },
      };
    },
    flush: async () => {},
    close: async () => {},
  };
  const named = (name: string): RecordedSpan => {
    const span = spans.find((recorded) => recorded.name === name);
    if (!span) throw new Error(`no span named "${name}" among: ${spans.map((s) => s.name)}`);
    return span;
  };
  const tree = (): [string, string | undefined][] =>
    spans.map((span) => [
      span.name,
      spans.find((parent) => parent.context.spanId === span.parent)?.name,
    ]);
  return { tracer, spans, named, tree };
}
