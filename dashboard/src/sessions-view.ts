/**
 * The agent sessions view: provider, mode, status, whether the agent got the connector
 * binding, the strategy of the last refresh, whether the agent re-listed the tools since
 * the last change, what its tools may do unasked, why it ended; each open session can be
 * closed, and one that needs a restart restarted. Above them, what an upstream asks the
 * person through a live session's agent and nobody answered yet (read only: the one who
 * drives the agent answers it).
 */
import { call, type PendingElicitation, type Session } from './api';
import { act } from './act';
import { h, timeOf } from './dom';

/** Whether the agent listed the tools since the registry last changed (`version`). */
function relisted(session: Session, version: number): string {
  if (!session.toolsListed) return 'not listed yet';
  return session.toolsListed.version >= version
    ? `yes (${session.toolsListed.toolCount} tools)`
    : `no (listed version ${session.toolsListed.version}, now ${version})`;
}

function refreshOf(session: Session): string {
  const refresh = session.lastRefresh;
  if (!refresh) return 'none yet';
  if (refresh.error) return `failed: ${refresh.error}`;
  return `${refresh.strategy ?? 'unknown'} (version ${refresh.version})`;
}

/** Why a session ended or needs a restart; nothing for one that is live. */
function endOf(session: Session): string {
  if (session.status !== 'exited' && session.status !== 'needs-restart') return '—';
  const parts = [session.reason, session.exit?.description].filter(Boolean);
  return parts.length ? parts.join('; ') : '—';
}

/** The questions waiting for the person, oldest first; nothing when there is none. */
function waitingTable(elicitations: readonly PendingElicitation[]): HTMLElement | null {
  if (!elicitations.length) return null;
  return h(
    'table',
    { id: 'elicitations' },
    h('caption', {}, 'Waiting for the person: questions an upstream asks through an agent'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...['Session', 'Connector', 'Tool', 'Question', 'Mode', 'Since'].map((title) =>
          h('th', { scope: 'col' }, title),
        ),
      ),
    ),
    h(
      'tbody',
      {},
      ...elicitations.map((asked) =>
        h(
          'tr',
          { 'data-session': asked.session },
          h('td', {}, h('code', {}, asked.session)),
          h('td', { class: 'connector' }, asked.connector ?? (asked.server || '—')),
          h('td', { class: 'tool' }, asked.tool ?? '—'),
          h('td', { class: 'message' }, asked.message),
          h('td', { class: 'mode' }, asked.mode),
          h('td', {}, timeOf(asked.since)),
        ),
      ),
    ),
  );
}

/** The view of `sessions`, the registry at `version`, and the questions waiting. */
export function sessionsView(
  sessions: readonly Session[],
  version: number,
  host: { say(message: string, isError?: boolean): void; refresh(): void },
  elicitations: readonly PendingElicitation[] = [],
): HTMLElement {
  const heading = h('h2', { id: 'sessions-title' }, 'Agent sessions');
  if (!sessions.length) {
    return h(
      'section',
      { 'aria-labelledby': 'sessions-title' },
      heading,
      h('p', { class: 'empty' }, 'No agent session is open.'),
    );
  }
  return h(
    'section',
    { 'aria-labelledby': 'sessions-title' },
    heading,
    waitingTable(elicitations),
    h('p', {}, `Tool list version now: ${version}.`),
    h(
      'table',
      { id: 'sessions' },
      h('caption', {}, 'Sessions of this daemon'),
      h(
        'thead',
        {},
        h(
          'tr',
          {},
          ...[
            'Session',
            'Provider',
            'Mode',
            'Permissions',
            'Status',
            'Connector',
            'Last refresh',
            'Re-listed since last change',
            'Ended because',
            'Actions',
          ].map((title) => h('th', { scope: 'col' }, title)),
        ),
      ),
      h(
        'tbody',
        {},
        ...sessions.map((session) =>
          h(
            'tr',
            { 'data-session': session.id },
            h('td', {}, h('code', {}, session.id), h('br'), h('small', {}, session.workspaceId)),
            h('td', {}, session.provider),
            h('td', {}, session.mode),
            h('td', { class: 'permissions' }, session.permissions),
            h('td', {}, session.status),
            h('td', { class: 'connector' }, session.connector),
            h('td', { class: 'refresh' }, refreshOf(session)),
            h(
              'td',
              { class: 'relisted' },
              relisted(session, version),
              ...(session.toolsListed ? [' at ', timeOf(session.toolsListed.at)] : []),
            ),
            h('td', {}, endOf(session)),
            h(
              'td',
              {},
              session.status === 'needs-restart'
                ? h(
                    'button',
                    {
                      type: 'button',
                      'aria-label': `Restart session ${session.id}`,
                      onclick: () =>
                        act(host, `Restarting session ${session.id}`, async () => {
                          const answer = await call<{ restartedAs?: string }>(
                            'POST',
                            `/sessions/${encodeURIComponent(session.id)}/restart`,
                          );
                          return `Restarted session ${session.id} (${answer.restartedAs ?? 'started'}).`;
                        }),
                    },
                    'Restart',
                  )
                : '',
              session.status === 'exited'
                ? ''
                : h(
                    'button',
                    {
                      type: 'button',
                      class: 'danger',
                      'aria-label': `Close session ${session.id}`,
                      onclick: () =>
                        act(host, `Closing session ${session.id}`, async () => {
                          await call('DELETE', `/sessions/${encodeURIComponent(session.id)}`);
                          return `Closed session ${session.id}.`;
                        }),
                    },
                    'Close',
                  ),
            ),
          ),
        ),
      ),
    ),
  );
}
