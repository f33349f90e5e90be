/**
 * Which tracer the daemon runs: the OpenTelemetry one when an OTLP traces endpoint is set
 * (a flag, or the standard `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT` / `OTEL_EXPORTER_OTLP_ENDPOINT`
 * variables, read by `tuttid`), else the pass-through one, and then no OpenTelemetry code is
 * loaded at all (docs/tracing.md).
 */
import { createPassThroughTracer } from './pass-through.js';
import type { Tracer } from './types.js';
import type { OtelTracerOptions } from './otel-tracer.js';

/** How the daemon traces (`DaemonOptions.tracing`). */
export interface TracingOptions {
  /** The OTLP/HTTP traces URL; none: nothing is exported and no exporter is loaded. */
  readonly endpoint?: string;
  /** Pass the agent's `baggage` on to the upstream (default false: it may hold user data). */
  readonly baggage?: boolean;
  /** Longest a span waits before it is exported, in ms (default 1,000). */
  readonly exportDelayMs?: number;
  /** Most spans waiting to be exported; past it the oldest are dropped (default 2,048). */
  readonly maxQueue?: number;
  /**
   * Share of new traces recorded, 0 to 1 (default 1): a trace the agent started keeps the
   * agent's decision (its sampled flag); the others are recorded at this ratio.
   */
  readonly sampleRatio?: number;
}

/**
 * The traces URL the standard OpenTelemetry variables name, or undefined: the traces
 * endpoint as it is, else the base endpoint with `/v1/traces`; none when the SDK is
 * disabled or the traces exporter is `none`.
 */
export function tracesEndpointOf(env: NodeJS.ProcessEnv): string | undefined {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return undefined;
  const exporters = (env.OTEL_TRACES_EXPORTER ?? '').split(',').map((name) => name.trim());
  if (exporters.includes('none')) return undefined;
  const traces = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  if (traces) return traces;
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  if (!base) return undefined;
  return `${base.replace(/\/+$/, '')}/v1/traces`;
}

/**
 * The ratio the standard sampler variables ask for: `OTEL_TRACES_SAMPLER` =
 * `parentbased_traceidratio` or `traceidratio` with `OTEL_TRACES_SAMPLER_ARG` (default 1);
 * both keep an agent's own decision. Undefined for any other sampler, or a bad ratio.
 */
export function sampleRatioOf(env: NodeJS.ProcessEnv): number | undefined {
  const sampler = env.OTEL_TRACES_SAMPLER?.trim().toLowerCase();
  if (sampler !== 'parentbased_traceidratio' && sampler !== 'traceidratio') return undefined;
  const ratio = Number(env.OTEL_TRACES_SAMPLER_ARG?.trim() || '1');
  return Number.isFinite(ratio) && ratio >= 0 && ratio <= 1 ? ratio : undefined;
}

/** The daemon's tracer for `options` (the exporter is imported only with an endpoint). */
export async function openTracer(
  options: TracingOptions | undefined,
  identity: Pick<OtelTracerOptions, 'serviceName' | 'serviceVersion' | 'onDropped'>,
): Promise<Tracer> {
  if (!options?.endpoint) return createPassThroughTracer();
  const { createOtelTracer } = await import('./otel-tracer.js');
  return createOtelTracer({
    url: options.endpoint,
    ...identity,
    ...(options.exportDelayMs !== undefined && { exportDelayMs: options.exportDelayMs }),
    ...(options.maxQueue !== undefined && { maxQueue: options.maxQueue }),
    ...(options.sampleRatio !== undefined && { sampleRatio: options.sampleRatio }),
  });
}
