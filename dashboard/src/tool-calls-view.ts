/**
 * The tool calls view: the daemon's audit trail of `tools/call` (`/dashboard/api/audit`),
 * newest first, filtered by connector and outcome; "Load older" reads on below. While the
 * view is shown it asks every 2 s for what came after the newest call it holds: the event
 * stream carries no tool calls. The page gets no captured argument or result value (the
 * route leaves them out) and shows no digest: only sizes (tool-call-row.ts).
 */
import { ApiError, call, type ToolCallRecord } from './api';
import { h } from './dom';
import { OUTCOMES, rowOf } from './tool-call-row';
import { ToolCallsFeed } from './tool-calls-feed';

/** How often the view asks for new calls while it is shown. */
const POLL_MS = 2000;

/** A `<select>` with its label; `onChange` is called when another value is chosen. */
function filterSelect(id: string, label: string, onChange: () => void) {
  const select = h('select', { id, onchange: onChange });
  return { select, field: h('div', {}, h('label', { for: id }, label), select) };
}

/** The view; `update` takes the connectors the page knows, `start`/`stop` the live reads. */
export function toolCallsView(host: { say(message: string, isError?: boolean): void }) {
  const feed = new ToolCallsFeed<ToolCallRecord>((query) =>
    call('GET', `/audit?${query}`, undefined, AbortSignal.timeout(15_000)),
  );
  let known: readonly string[] = [];
  const connector = filterSelect('calls-connector', 'Connector', () => void reload());
  const outcome = filterSelect('calls-outcome', 'Outcome', () => void reload());
  outcome.select.append(
    h('option', { value: '' }, 'All outcomes'),
    ...Object.entries(OUTCOMES).map(([value, { label }]) => h('option', { value }, label)),
  );
  const status = h('p', { class: 'live' });
  const body = h('tbody');
  const caption = h('caption', {}, 'Tool calls, newest first');
  const table = h(
    'table',
    { id: 'calls' },
    caption,
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...['Time', 'Connector', 'Tool', 'Session', 'Outcome', 'Duration', 'Size', 'Error'].map(
          (title) => h('th', { scope: 'col' }, title),
        ),
      ),
    ),
    body,
  );
  const empty = h('p', { class: 'empty' });
  const older = h(
    'button',
    {
      type: 'button',
      id: 'calls-older',
      onclick: async () => {
        older.disabled = true;
        try {
          const added = await feed.older();
          draw();
          const last = feed.olderCursor === undefined ? ' There is no older call.' : '';
          host.say(`Loaded ${added} older call${added === 1 ? '' : 's'}.${last}`);
          // The button is gone with the last page: the focus goes to the view's heading.
          if (older.hidden) heading.focus();
        } catch (error) {
          host.say(`Could not load older calls: ${messageOf(error)}`, true);
        } finally {
          older.disabled = false;
        }
      },
    },
    'Load older',
  );
  const heading = h('h2', { id: 'calls-title', tabindex: -1 }, 'Tool calls');
  const element = h(
    'section',
    { 'aria-labelledby': 'calls-title' },
    heading,
    h(
      'p',
      {},
      'Each tools/call agents made through the connector server, as the audit trail keeps it: who called what, how it ended, how long it took and how big its arguments and result were (never their values).',
    ),
    h(
      'form',
      { class: 'inline filters', 'aria-label': 'Filter the tool calls', onsubmit: prevent },
      connector.field,
      outcome.field,
    ),
    status,
    table,
    empty,
    h('p', {}, older),
  );

  /** Rows already built, by seq: a record never changes. */
  let rows = new Map<number, HTMLTableRowElement>();
  /** What the table shows now, so an unchanged table is not redrawn. */
  let drawn = '';
  function draw(): void {
    const records = feed.records;
    const what = [
      feed.filter,
      feed.loaded,
      records.length,
      records[0]?.seq,
      records.at(-1)?.seq,
      feed.olderCursor,
    ];
    drawConnectors();
    if (JSON.stringify(what) === drawn) return;
    drawn = JSON.stringify(what);
    const next = new Map<number, HTMLTableRowElement>();
    for (const record of feed.records) next.set(record.seq, rows.get(record.seq) ?? rowOf(record));
    rows = next;
    body.replaceChildren(...next.values());
    const filtered = feed.filter.connector || feed.filter.outcome;
    caption.textContent = `Tool calls, newest first (${feed.records.length} shown)`;
    table.hidden = feed.records.length === 0;
    empty.hidden = feed.records.length > 0;
    if (!feed.loaded) empty.textContent = 'Reading the tool calls…';
    else if (filtered) empty.textContent = 'No tool call matches these filters.';
    else empty.textContent = 'No tool call yet.';
    older.hidden = feed.olderCursor === undefined;
  }

  /** Connector choices: the known connectors, those of the calls shown, and the one chosen. */
  function drawConnectors(): void {
    const chosen = connector.select.value;
    const seen = feed.records.map((record) => record.connector ?? '').filter(Boolean);
    const keys = [...new Set([...known, ...seen, ...(chosen ? [chosen] : [])])].sort();
    const now = [...connector.select.options].map((option) => option.value).join('\n');
    if (now === ['', ...keys].join('\n')) return;
    connector.select.replaceChildren(
      h('option', { value: '' }, 'All connectors'),
      ...keys.map((key) => h('option', { value: key }, key)),
    );
    connector.select.value = chosen;
  }

  /** Says whether the view is live; false when asking again is of no use. */
  function live(error?: unknown): boolean {
    status.className = error ? 'offline' : 'live';
    if (!error) {
      status.textContent = `Live: new calls appear at the top (checked every ${POLL_MS / 1000} s).`;
      return true;
    }
    // A daemon started with --no-audit keeps none until it restarts, which ends this session.
    const off = error instanceof ApiError && error.code === 'TUTTI_ERR_CONTROL_AUDIT_OFF';
    status.textContent = off ? error.message : `Not updating: ${messageOf(error)}; trying again.`;
    return !off;
  }

  async function reload(): Promise<void> {
    const filter = {
      ...(connector.select.value && { connector: connector.select.value }),
      ...(outcome.select.value && { outcome: outcome.select.value }),
    };
    try {
      const asked = feed.reload(filter);
      draw();
      await asked;
      live();
    } catch (error) {
      live(error);
    }
    draw();
  }

  let timer: ReturnType<typeof setTimeout> | undefined;
  let running = false;
  async function tick(): Promise<void> {
    timer = undefined;
    if (!running) return;
    // A tab in the background asks nothing; it catches up when shown again.
    if (!document.hidden) {
      try {
        await feed.newer();
        live();
        draw();
      } catch (error) {
        if (error instanceof ApiError && error.code === 'TUTTI_ERR_DASHBOARD_SIGNED_OUT') return;
        if (!live(error)) return;
      }
    }
    if (running && timer === undefined) timer = setTimeout(tick, POLL_MS);
  }

  return {
    element,
    /** Takes the connectors the page knows now (for the connector filter). */
    update(connectors: readonly string[]): void {
      known = connectors;
      drawConnectors();
    },
    /** Starts the live reads (at once, then every 2 s); the view is shown. */
    start(): void {
      if (running) return;
      running = true;
      live();
      draw();
      void tick();
    },
    /** Stops them: the view is hidden, or the page signed out. */
    stop(): void {
      running = false;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    },
  };
}

function prevent(event: Event): void {
  event.preventDefault();
}

function messageOf(error: unknown): string {
  return error instanceof ApiError ? `${error.code}: ${error.message}` : String(error);
}
