/** Traces of tool calls and turns (docs/tracing.md). */
export { createPassThroughTracer } from './pass-through.js';
export {
  openTracer,
  sampleRatioOf,
  type TracingOptions,
  tracesEndpointOf,
} from './open-tracer.js';
export {
  checkBaggage,
  formatTraceparent,
  readTraceContext,
  type TraceContext,
} from './trace-context.js';
export type { Attributes, AttributeValue, Span, SpanKind, SpanStart, Tracer } from './types.js';
