/**
 * Daemon counters and gauges rendered as Prometheus text (`GET /metrics`). A handful of
 * numbers do not earn a metrics library; label values are connector keys and outcomes only.
 */

type Labels = Readonly<Record<string, string>>;

interface Family {
  readonly help: string;
  readonly type: 'counter' | 'gauge';
  readonly values: Map<string, number>;
}

/** Names of every metric the daemon exports. */
export const METRIC_NAMES = Object.freeze({
  routes: 'tutti_connector_routes',
  tools: 'tutti_connector_tools',
  calls: 'tutti_connector_tool_calls_total',
  callErrors: 'tutti_connector_tool_call_errors_total',
  toolErrors: 'tutti_connector_tool_errors_total',
  upstreamRestarts: 'tutti_connector_upstream_restarts_total',
  upstreamCrashes: 'tutti_connector_upstream_crashes_total',
  sessions: 'tutti_connector_agent_sessions',
});

/** Escapes a label value per the Prometheus text format. */
function escapeLabel(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/\n/g, '\\n').replace(/"/g, '\\"');
}

function labelKey(labels: Labels): string {
  const names = Object.keys(labels).sort();
  if (names.length === 0) return '';
  return `{${names.map((name) => `${name}="${escapeLabel(labels[name] ?? '')}"`).join(',')}}`;
}

/** A small metrics registry: counters and gauges with labels. */
export interface Metrics {
  /** Adds `by` (default 1) to a counter. */
  inc(name: string, labels?: Labels, by?: number): void;
  /** Sets a gauge. */
  set(name: string, value: number, labels?: Labels): void;
  /** Current value of one series (0 when never touched). */
  get(name: string, labels?: Labels): number;
  /** The Prometheus text exposition of every family. */
  render(): string;
}

/**
 * The daemon's metrics, every family of {@link METRIC_NAMES} defined and empty;
 * `refreshGauges` sets the gauges from what they measure before each render.
 * @example const metrics = createMetrics(); metrics.inc(METRIC_NAMES.calls, { key: 'github' });
 */
export function createMetrics(refreshGauges?: (metrics: Metrics) => void): Metrics {
  const families = new Map<string, Family>();
  const define = (name: string, type: Family['type'], help: string) => {
    families.set(name, { help, type, values: new Map() });
  };
  const family = (name: string): Family => {
    const found = families.get(name);
    if (!found) throw new Error(`unknown metric ${name}`);
    return found;
  };
  define(METRIC_NAMES.routes, 'gauge', 'Connector routes serving tools.');
  define(METRIC_NAMES.tools, 'gauge', 'Tools listed by the connector server.');
  define(METRIC_NAMES.calls, 'counter', 'tools/call requests routed to upstreams.');
  define(
    METRIC_NAMES.callErrors,
    'counter',
    'tools/call requests that failed (answered with an error, not a result).',
  );
  define(
    METRIC_NAMES.toolErrors,
    'counter',
    'tools/call results with isError: the tool ran and reported a failure.',
  );
  define(METRIC_NAMES.upstreamRestarts, 'counter', 'Upstream MCP client restarts.');
  define(METRIC_NAMES.upstreamCrashes, 'counter', 'Upstream MCP processes that died.');
  define(METRIC_NAMES.sessions, 'gauge', 'Live agent sessions holding a token.');
  const metrics: Metrics = {
    inc(name, labels = {}, by = 1) {
      const values = family(name).values;
      const key = labelKey(labels);
      values.set(key, (values.get(key) ?? 0) + by);
    },
    set(name, value, labels = {}) {
      family(name).values.set(labelKey(labels), value);
    },
    get: (name, labels = {}) => family(name).values.get(labelKey(labels)) ?? 0,
    render() {
      refreshGauges?.(metrics);
      const lines: string[] = [];
      for (const [name, { help, type, values }] of families) {
        lines.push(`# HELP ${name} ${help}`, `# TYPE ${name} ${type}`);
        if (values.size === 0 && type === 'gauge') lines.push(`${name} 0`);
        for (const [key, value] of values) lines.push(`${name}${key} ${value}`);
      }
      return `${lines.join('\n')}\n`;
    },
  };
  return metrics;
}
