/**
 * One tool call as the Tool calls view shows it: a table row of its time, connector, tool
 * (and the upstream tool and generation it ran as), session, outcome in words and a mark
 * (the colour only repeats it), duration, sizes and error codes. Never a value or digest.
 */
import type { ToolCallOutcome, ToolCallRecord } from './api';
import { h } from './dom';

/** How an outcome reads: its words, and a mark that says it without colour. */
interface OutcomeText {
  readonly mark: string;
  readonly label: string;
}

/** Each outcome's words and mark. */
export const OUTCOMES: Record<ToolCallOutcome, OutcomeText> = {
  ok: { mark: '✓', label: 'ok' },
  tool_error: { mark: '✗', label: 'tool error' },
  rpc_error: { mark: '✗', label: 'JSON-RPC error' },
  timeout: { mark: '✗', label: 'timed out' },
  cancelled: { mark: '–', label: 'cancelled' },
  auth_required: { mark: '!', label: 'sign-in needed' },
};

/** A size in bytes, short. */
function sizeOf(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KiB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

/** A duration in ms, short. */
function durationOf(ms: number): string {
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(1)} s`;
}

/** The time of a call: the clock time today, with the date before today. */
function whenOf(time: string): HTMLTimeElement {
  const date = new Date(time);
  const today = date.toDateString() === new Date().toDateString();
  return h(
    'time',
    { datetime: date.toISOString(), title: date.toLocaleString() },
    today ? date.toLocaleTimeString() : date.toLocaleString(),
  );
}

/** The row of `record`; `data-seq`, `data-outcome` and `data-connector` say what it is. */
export function rowOf(record: ToolCallRecord): HTMLTableRowElement {
  const outcome = OUTCOMES[record.outcome] ?? { mark: '?', label: record.outcome };
  const upstream = record.upstreamTool
    ? `upstream ${record.upstreamTool}${record.generation !== undefined ? `, generation ${record.generation}` : ''}`
    : undefined;
  const failure = [
    record.code ? h('code', {}, record.code) : null,
    record.code && record.rpcCode !== undefined ? h('br') : null,
    record.rpcCode !== undefined ? h('small', {}, `JSON-RPC ${record.rpcCode}`) : null,
  ];
  return h(
    'tr',
    {
      'data-seq': record.seq,
      'data-outcome': record.outcome,
      'data-connector': record.connector ?? '',
    },
    h('td', { class: 'time' }, whenOf(record.time)),
    h('td', { class: 'connector' }, record.connector ?? '—'),
    h(
      'td',
      { class: 'tool' },
      h('code', {}, record.tool),
      ...(upstream ? [h('br'), h('small', {}, upstream)] : []),
    ),
    h(
      'td',
      { class: 'session' },
      h('code', {}, record.session),
      h('br'),
      h('small', {}, `${record.provider ?? 'no provider'} · ${record.workspace}`),
    ),
    h(
      'td',
      {},
      h(
        'span',
        { class: `outcome outcome-${record.outcome}` },
        h('span', { 'aria-hidden': 'true' }, `${outcome.mark} `),
        outcome.label,
      ),
    ),
    h('td', { class: 'number' }, durationOf(record.durationMs)),
    h(
      'td',
      { class: 'number' },
      `args ${sizeOf(record.argBytes)}`,
      h('br'),
      `result ${sizeOf(record.resultBytes)}`,
    ),
    h(
      'td',
      { class: 'failure' },
      ...(record.code || record.rpcCode !== undefined ? failure : ['—']),
    ),
  );
}
