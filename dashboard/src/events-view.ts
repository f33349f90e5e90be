/** The live events view: the daemon's events as they come, newest first. */
import { h, timeOf } from './dom';
import type { LiveEvent } from './live-events';

/** Fields shown after the type, in this order when present. */
const FIELDS = [
  'key',
  'version',
  'revision',
  'status',
  'advice',
  'toolCount',
  'session',
  'provider',
  'strategy',
  'action',
  'connector',
  'reason',
  'resumed',
  'needsRestart',
];

/** One line of what the event says. */
export function summaryOf(event: LiveEvent): string {
  return FIELDS.filter((field) => event[field] !== undefined)
    .map((field) => `${field} ${String(event[field])}`)
    .join(', ');
}

/** The view of `events` (oldest first as received); `connected` is the stream's state. */
export function eventsView(events: readonly LiveEvent[], connected: boolean): HTMLElement {
  return h(
    'section',
    { 'aria-labelledby': 'events-title' },
    h('h2', { id: 'events-title' }, 'Live events'),
    h(
      'p',
      { class: connected ? 'live' : 'offline' },
      connected ? 'Connected: new events appear here as they happen.' : 'Not connected: retrying…',
    ),
    events.length
      ? h(
          'ol',
          { id: 'events', class: 'events', reversed: true },
          ...[...events]
            .reverse()
            .map((event) =>
              h(
                'li',
                { 'data-type': event.type },
                event.at ? timeOf(event.at) : '',
                ' ',
                h('strong', {}, event.type),
                summaryOf(event) ? ` — ${summaryOf(event)}` : '',
              ),
            ),
        )
      : h('p', { class: 'empty' }, 'No event yet.'),
  );
}
