import { describe, expect, it } from 'vitest';
import { METRIC_NAMES, createMetrics } from './metrics.js';

describe('Metrics', () => {
  it('renders counters and gauges in the Prometheus text format', () => {
    const metrics = createMetrics();
    metrics.inc(METRIC_NAMES.calls, { connector: 'github' });
    metrics.inc(METRIC_NAMES.calls, { connector: 'github' }, 2);
    metrics.set(METRIC_NAMES.routes, 3);
    const text = metrics.render();
    expect(text).toContain('# TYPE tutti_connector_tool_calls_total counter');
    expect(text).toContain('tutti_connector_tool_calls_total{connector="github"} 3');
    expect(text).toContain('tutti_connector_routes 3');
    expect(text.endsWith('\n')).toBe(true);
  });

  it('escapes quotes, backslashes and newlines in label values', () => {
    const metrics = createMetrics();
    metrics.inc(METRIC_NAMES.callErrors, { reason: 'a"b\\c\nd' });
    expect(metrics.render()).toContain('{reason="a\\"b\\\\c\\nd"} 1');
  });

  it('refuses a metric it does not define', () => {
    expect(() => createMetrics().inc('nope')).toThrow(/unknown metric/);
  });
});
