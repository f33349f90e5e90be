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
export class Metrics {
  readonly #families = new Map<string, Family>();

  constructor() {
    this.#define(METRIC_NAMES.routes, 'gauge', 'Connector routes serving tools.');
    this.#define(METRIC_NAMES.tools, 'gauge', 'Tools listed by the connector server.');
    this.#define(METRIC_NAMES.calls, 'counter', 'tools/call requests routed to upstreams.');
    this.#define(METRIC_NAMES.callErrors, 'counter', 'tools/call requests that failed.');
    this.#define(METRIC_NAMES.upstreamRestarts, 'counter', 'Upstream MCP client restarts.');
    this.#define(METRIC_NAMES.upstreamCrashes, 'counter', 'Upstream MCP processes that died.');
    this.#define(METRIC_NAMES.sessions, 'gauge', 'Live agent sessions holding a token.');
  }

  #define(name: string, type: Family['type'], help: string): void {
    this.#families.set(name, { help, type, values: new Map() });
  }

  #family(name: string): Family {
    const family = this.#families.get(name);
    if (!family) throw new Error(`unknown metric ${name}`);
    return family;
  }

  /** Adds `by` (default 1) to a counter. */
  inc(name: string, labels: Labels = {}, by = 1): void {
    const values = this.#family(name).values;
    const key = labelKey(labels);
    values.set(key, (values.get(key) ?? 0) + by);
  }

  /** Sets a gauge. */
  set(name: string, value: number, labels: Labels = {}): void {
    this.#family(name).values.set(labelKey(labels), value);
  }

  /** Current value of one series (0 when never touched). */
  get(name: string, labels: Labels = {}): number {
    return this.#family(name).values.get(labelKey(labels)) ?? 0;
  }

  /** The Prometheus text exposition of every family. */
  render(): string {
    const lines: string[] = [];
    for (const [name, family] of this.#families) {
      lines.push(`# HELP ${name} ${family.help}`, `# TYPE ${name} ${family.type}`);
      if (family.values.size === 0 && family.type === 'gauge') lines.push(`${name} 0`);
      for (const [key, value] of family.values) lines.push(`${name}${key} ${value}`);
    }
    return `${lines.join('\n')}\n`;
  }
}
