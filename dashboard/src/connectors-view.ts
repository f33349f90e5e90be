/**
 * The connectors view: one row per installed connector (key, name, the version running
 * and the one pending with why, status with its reason and its server's stderr, its
 * server's isolation (sandbox-view.ts), tools, interfaces, restarts, recent events
 * counted) and its actions: tools, retry, roll back, sign in (a remote server that wants
 * one: the authorization server's page opens in a new tab, and the row changes once the
 * sign-in is done there), set or clear a credential (write-only: the field is emptied once
 * sent, nothing is shown back), uninstall; above it, a notice when servers are not
 * isolated, and install from a release folder. Rows are kept by key and updated in place,
 * so a credential being typed survives a refresh.
 */
import { type Connector, call, type DaemonSandbox } from './api';
import { act } from './act';
import { signInButton } from './sign-in-button';
import { h, timeOf } from './dom';
import { drawIsolation, sandboxNotice } from './sandbox-view';

/** What the view needs from the page. */
export interface ConnectorsViewHost {
  say(message: string, isError?: boolean): void;
  refresh(): void;
  showTools(key: string): void;
}

/** The status word of a connector: the runtime's state, or why it has none. */
export function stateOf(connector: Connector): string {
  if (connector.runtime) return connector.runtime.state;
  return connector.authReady ? 'stopped' : 'needs-auth';
}

function reasonOf(connector: Connector): string | undefined {
  const runtime = connector.runtime;
  if (!runtime) return connector.authReady ? undefined : 'Waits for a credential: set one below.';
  if (runtime.signIn) return 'Waits for you to sign in to its server: press Sign in.';
  if (runtime.state === 'ready') {
    return runtime.pending
      ? `Version ${runtime.pending.version} did not start: ${runtime.pending.reason}`
      : undefined;
  }
  if (runtime.lastError) return runtime.lastError;
  // While a failed server is retried its state reads `starting`: say what the last try met.
  const failure = runtime.failures > 0 ? lastFailure(connector) : undefined;
  if (failure) return `Last failure: ${failure}`;
  // The advice points at the API; here the stderr, when there is one, is right below.
  if (runtime.stderr?.length) return 'It is not working: its server’s stderr is below.';
  return runtime.advice;
}

/** The version cell: the release running, and the one installed while it has not run. */
function versionOf(connector: Connector): (Node | string)[] {
  const runtime = connector.runtime;
  const running = runtime?.running?.version;
  const pending = runtime?.pending?.version;
  const cell: (Node | string)[] = [running ?? (pending ? '—' : connector.version)];
  if (pending && pending !== running) {
    cell.push(h('br'), h('small', { class: 'pending' }, `pending ${pending}`));
  }
  return cell;
}

/** The recent events, each run of the same kind and detail shown once with its count. */
function countedEvents(events: readonly Connector['recentEvents'][number][]) {
  const runs: { event: Connector['recentEvents'][number]; count: number }[] = [];
  for (const event of events) {
    const last = runs.at(-1);
    if (last && last.event.kind === event.kind && last.event.detail === event.detail) {
      last.count += 1;
      last.event = event;
    } else runs.push({ event, count: 1 });
  }
  return runs;
}

function lastFailure(connector: Connector): string | undefined {
  const failures = connector.recentEvents.filter(
    (event) => (event.kind === 'start-failed' || event.kind === 'crashed') && event.detail,
  );
  return failures.at(-1)?.detail;
}

/** The view; `update` redraws it from the latest connectors. */
export function connectorsView(host: ConnectorsViewHost) {
  const rows = new Map<
    string,
    {
      row: HTMLTableRowElement;
      cells: HTMLTableCellElement[];
      retry: HTMLButtonElement;
      rollback: HTMLButtonElement;
      signIn: HTMLButtonElement;
    }
  >();
  const body = h('tbody');
  const empty = h('p', { class: 'empty' }, 'No connector is installed.');
  const path = h('input', {
    id: 'install-path',
    name: 'path',
    type: 'text',
    required: true,
    placeholder: '/absolute/path/to/release',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const install = h(
    'form',
    {
      class: 'inline',
      'aria-label': 'Install a connector',
      onsubmit: (event: Event) => {
        event.preventDefault();
        void act(host, `Installing from ${path.value}`, async () => {
          const answer = await call<{ key: string; changed: boolean }>(
            'POST',
            '/connectors/install',
            { path: path.value.trim() },
          );
          path.value = '';
          return answer.changed
            ? `Installed ${answer.key}.`
            : `${answer.key} is already this release.`;
        });
      },
    },
    h('label', { for: 'install-path' }, 'Release folder'),
    path,
    h('button', { type: 'submit' }, 'Install'),
  );
  const table = h(
    'table',
    { id: 'connectors' },
    h('caption', {}, 'Installed connectors'),
    h(
      'thead',
      {},
      h(
        'tr',
        {},
        ...[
          'Key',
          'Name',
          'Version',
          'Status',
          'Isolation',
          'Tools',
          'Interfaces',
          'Restarts',
          'Recent events',
          'Actions',
        ].map((title) => h('th', { scope: 'col' }, title)),
      ),
    ),
    body,
  );
  const notice = h('p', { id: 'sandbox-notice', class: 'sandbox-notice', hidden: true });
  const element = h(
    'section',
    { 'aria-labelledby': 'connectors-title' },
    h('h2', { id: 'connectors-title' }, 'Connectors'),
    notice,
    install,
    table,
    empty,
  );

  const rowOf = (connector: Connector) => {
    const known = rows.get(connector.key);
    if (known) return known;
    const cells = Array.from({ length: 9 }, () => h('td'));
    const key = connector.key;
    const secret = h('input', {
      id: `secret-${key}`,
      type: 'password',
      autocomplete: 'off',
      required: true,
    });
    const credential =
      connector.authKind === 'none'
        ? null
        : h(
            'form',
            {
              class: 'credential',
              'aria-label': `Set or clear the credential of ${key}`,
              onsubmit: (event: Event) => {
                event.preventDefault();
                const value = secret.value;
                secret.value = '';
                void act(host, `Setting the credential of ${key}`, async () => {
                  await call('PUT', `/connectors/${encodeURIComponent(key)}/credentials`, {
                    secret: value,
                  });
                  return `The credential of ${key} is set.`;
                });
              },
            },
            h('label', { for: `secret-${key}` }, `Credential of ${key}`),
            secret,
            h('button', { type: 'submit' }, 'Set'),
            h(
              'button',
              {
                type: 'button',
                onclick: () =>
                  act(host, `Clearing the credential of ${key}`, async () => {
                    await call('DELETE', `/connectors/${encodeURIComponent(key)}/credentials`);
                    return `The credential of ${key} is cleared.`;
                  }),
              },
              'Clear',
            ),
          );
    const retry = h(
      'button',
      {
        type: 'button',
        class: 'retry',
        'aria-label': `Retry ${key}`,
        onclick: () =>
          act(host, `Retrying ${key}`, async () => {
            const answer = await call<{ runtime: { state: string } }>(
              'POST',
              `/connectors/${encodeURIComponent(key)}/retry`,
            );
            return `Retried ${key}: ${answer.runtime.state}.`;
          }),
      },
      'Retry',
    );
    const rollback = h(
      'button',
      {
        type: 'button',
        class: 'rollback',
        'aria-label': `Roll back ${key}`,
        onclick: () =>
          act(host, `Rolling ${key} back`, async () => {
            const answer = await call<{ version: string }>(
              'POST',
              `/connectors/${encodeURIComponent(key)}/rollback`,
            );
            return `Rolled ${key} back to ${answer.version}.`;
          }),
      },
      'Roll back',
    );
    const signIn = signInButton(host, key);
    const actions = h(
      'td',
      {},
      h(
        'div',
        { class: 'actions' },
        h('button', { type: 'button', onclick: () => host.showTools(key) }, `Tools of ${key}`),
        signIn,
        retry,
        rollback,
        h(
          'button',
          {
            type: 'button',
            class: 'danger',
            onclick: () => {
              if (
                !window.confirm(`Uninstall ${key}? Its route, CLI shim and credential are removed.`)
              )
                return;
              void act(host, `Uninstalling ${key}`, async () => {
                await call('DELETE', `/connectors/${encodeURIComponent(key)}`);
                return `Uninstalled ${key}.`;
              });
            },
          },
          `Uninstall ${key}`,
        ),
        credential,
      ),
    );
    const row = h('tr', { 'data-key': key }, ...cells, actions);
    const made = { row, cells, retry, rollback, signIn };
    rows.set(key, made);
    return made;
  };

  return {
    element,
    update(connectors: readonly Connector[], sandbox?: DaemonSandbox) {
      const said = sandboxNotice(sandbox, connectors);
      notice.hidden = !said;
      if (notice.textContent !== (said?.text ?? '')) notice.textContent = said?.text ?? '';
      if (said) notice.dataset.kind = said.kind;
      const keys = new Set(connectors.map((c) => c.key));
      for (const [key, { row }] of rows) {
        if (!keys.has(key)) {
          row.remove();
          rows.delete(key);
        }
      }
      for (const connector of connectors) {
        const { row, cells, retry, rollback, signIn } = rowOf(connector);
        fill(cells, connector);
        const runtime = connector.runtime;
        // Retry for one that is not serving its installed release; roll back while one is pending.
        retry.hidden = !runtime || (runtime.state === 'ready' && !runtime.pending);
        rollback.hidden = !runtime?.pending || !runtime.running;
        signIn.hidden = runtime?.signIn !== true;
        body.append(row);
      }
      empty.hidden = connectors.length > 0;
      table.hidden = connectors.length === 0;
    },
  };
}

function fill(cells: HTMLTableCellElement[], connector: Connector): void {
  const runtime = connector.runtime;
  const state = stateOf(connector);
  const reason = reasonOf(connector);
  const stderr = runtime?.stderr ?? [];
  const set = (index: number, ...children: (Node | string)[]) =>
    cells[index]?.replaceChildren(...children);
  set(0, h('code', {}, connector.key));
  set(1, connector.name);
  set(2, ...versionOf(connector));
  set(
    3,
    h('span', { class: `state state-${state}`, 'data-state': state }, state),
    ...(reason ? [h('p', { class: 'reason' }, reason)] : []),
    ...(runtime?.parked
      ? [
          h(
            'p',
            { class: 'parked' },
            'It failed too often in a row and is not retried any more: Retry tries it again.',
          ),
        ]
      : []),
    ...(stderr.length
      ? [
          h(
            'details',
            {},
            h('summary', {}, 'Server stderr'),
            h('pre', { class: 'stderr' }, stderr.join('\n')),
          ),
        ]
      : []),
  );
  if (cells[4]) drawIsolation(cells[4], connector);
  set(5, String(runtime?.toolCount ?? 0));
  const faces = [
    runtime?.mcp !== undefined ? `MCP ${runtime.mcp}` : undefined,
    runtime?.cli !== undefined ? `CLI ${runtime.cli}` : undefined,
  ].filter((face): face is string => face !== undefined);
  set(6, faces.length ? faces.join(', ') : '—');
  set(7, String(runtime?.restarts ?? 0));
  set(
    8,
    connector.recentEvents.length
      ? h(
          'ul',
          { class: 'recent' },
          ...countedEvents(connector.recentEvents).map(({ event, count }) =>
            h(
              'li',
              {},
              timeOf(event.at),
              ` ${event.kind}`,
              count > 1 ? ` (×${count})` : '',
              event.detail ? `: ${event.detail}` : '',
            ),
          ),
        )
      : '—',
  );
}
