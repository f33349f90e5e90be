/**
 * The isolation of connector servers (docs/sandbox.md) in the connectors view: a badge per
 * connector with a stdio server (isolated, not isolated, refused, off) and, folded below
 * it, what its server may use (profile, network, home paths, limits, the names of the
 * variables it gets: never their values); above the table, a notice when the daemon's
 * servers run without isolation although it asks for it, or do not start at all.
 */
import type { Connector, DaemonSandbox } from './api';
import { h } from './dom';

/** The badge's word for each isolation. */
const BADGE: Readonly<Record<string, string>> = {
  isolated: 'isolated',
  'not-isolated': 'not isolated',
  refused: 'refused',
  off: 'off',
};

/** What a server that is not isolated means, by its isolation. */
const NOT_ENFORCED: Readonly<Record<string, string>> = {
  'not-isolated': 'Not enforced: no sandbox works here, so its server runs without isolation.',
  off: 'Not enforced: tuttid runs with --sandbox off.',
  refused:
    'Its server is not started: tuttid runs with --sandbox required and cannot isolate it here.',
};

function listOrNone(paths: readonly string[]): string {
  return paths.length ? paths.join(', ') : 'none';
}

/** The isolation cell of `connector`: its badge and what it may use; a dash without a stdio server. */
function isolationCell(connector: Connector): (Node | string)[] {
  const sandbox = connector.sandbox;
  if (!sandbox) return ['—'];
  const { isolation, home, limits } = sandbox;
  const row = (term: string, ...description: (Node | string)[]) => [
    h('dt', {}, term),
    h('dd', {}, ...description),
  ];
  return [
    h(
      'span',
      { class: `isolation isolation-${isolation}`, 'data-isolation': isolation },
      BADGE[isolation] ?? isolation,
    ),
    ...(sandbox.platform ? [' ', h('small', {}, `by ${sandbox.platform}`)] : []),
    h(
      'details',
      { class: 'sandbox' },
      h('summary', {}, 'What its server may use'),
      NOT_ENFORCED[isolation] ? h('p', { class: 'sandbox-note' }, NOT_ENFORCED[isolation]) : null,
      h(
        'dl',
        {},
        ...row('Profile', sandbox.profile === 'declared' ? 'declared in its manifest' : 'default'),
        ...row('Network', sandbox.network === 'none' ? 'none (its own loopback only)' : 'host'),
        ...row('Home, read', listOrNone(home.read)),
        ...row('Home, write', listOrNone(home.write)),
        ...row('Limits', `${limits.memoryMiB} MiB of memory, ${limits.processes} processes`),
        ...row(
          'Environment',
          ...(sandbox.env.length
            ? sandbox.env.flatMap((name, index) => [index ? ', ' : '', h('code', {}, name)])
            : ['none']),
        ),
      ),
    ),
  ];
}

/** What each isolation cell shows now. */
const drawn = new WeakMap<HTMLElement, string>();

/**
 * Draws `connector`'s isolation in `cell`, only when it changed: its detail keeps the
 * focus across refreshes, and one opened stays open.
 */
export function drawIsolation(cell: HTMLElement, connector: Connector): void {
  const shown = JSON.stringify(connector.sandbox ?? null);
  if (drawn.get(cell) === shown) return;
  drawn.set(cell, shown);
  const open = cell.querySelector('details')?.open === true;
  cell.replaceChildren(...isolationCell(connector));
  const details = cell.querySelector('details');
  if (details) details.open = open;
}

/**
 * What the daemon-level notice says, when servers run without isolation although the
 * daemon asks for it (`auto` where no sandbox works), or do not start (`required` there);
 * from the daemon's `sandbox` when the answer has it, else from the connectors' own.
 */
export function sandboxNotice(
  daemon: DaemonSandbox | undefined,
  connectors: readonly Connector[],
): { readonly kind: 'not-isolated' | 'refused'; readonly text: string } | undefined {
  let kind: 'not-isolated' | 'refused' | undefined;
  if (daemon) {
    if (daemon.mode !== 'off' && !daemon.platform)
      kind = daemon.mode === 'required' ? 'refused' : 'not-isolated';
  } else {
    const isolations = new Set(connectors.map((connector) => connector.sandbox?.isolation));
    if (isolations.has('refused')) kind = 'refused';
    else if (isolations.has('not-isolated')) kind = 'not-isolated';
  }
  if (!kind) return undefined;
  const why = daemon?.unavailable ? `: ${daemon.unavailable}` : '';
  const text =
    kind === 'refused'
      ? `No connector server starts: tuttid runs with --sandbox required and cannot isolate them here${why}. See docs/sandbox.md.`
      : `Connector servers run without isolation: tuttid runs with --sandbox auto and no sandbox works here${why}. Each server can read your home and use the network as you can. See docs/sandbox.md.`;
  return { kind, text };
}
