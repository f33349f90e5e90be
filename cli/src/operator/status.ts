/**
 * `tuttid status`: what the daemon running for a home says about the isolation of connector
 * servers, each installed connector (its status, the reason when it does not work, how its
 * server is isolated, its server's last stderr lines) and each agent session (its status
 * and why it ended), from `GET /v1/connectors` and `GET /v1/sessions`: what a person would
 * otherwise read with curl and the control token.
 */
import { TuttiError } from '@tutti/core/client';
import type { DaemonConnection } from '../daemon-client.js';
import { printable } from '../printable.js';
import {
  type ConnectorSandbox,
  connectorSandboxLines,
  type DaemonSandbox,
  daemonSandboxLine,
  daemonSandboxOf,
} from './sandbox.js';

/** One connector as `GET /v1/connectors` lists it (the fields shown here). */
export interface ConnectorEntry {
  readonly key: string;
  readonly name?: string;
  readonly version?: string;
  readonly authReady?: boolean;
  /** Where its credential (a key, a token, a sign-in's refresh token) is kept, when it has one. */
  readonly credentialStore?: 'keychain' | 'file';
  /** How its stdio server runs (docs/sandbox.md), when it has one. */
  readonly sandbox?: ConnectorSandbox;
  readonly runtime: {
    readonly state: string;
    readonly toolCount?: number;
    readonly failures?: number;
    readonly restarts?: number;
    readonly lastError?: string;
    readonly advice?: string;
    readonly signIn?: boolean;
    readonly stderr?: readonly string[];
    readonly mcp?: string;
    readonly cli?: string;
    readonly running?: { readonly version?: string };
    readonly pending?: { readonly version?: string; readonly reason?: string };
  } | null;
}

/** One agent session as `GET /v1/sessions` lists it (the fields shown here). */
export interface SessionEntry {
  readonly id: string;
  readonly provider: string;
  readonly status: string;
  readonly connector?: string;
  readonly permissions?: string;
  readonly reason?: string;
  readonly exit?: { readonly description?: string; readonly stderr?: readonly string[] };
}

/** What `tuttid status --json` prints: the daemon, its connectors and its sessions. */
export interface DaemonStatus {
  readonly home: string;
  readonly pid: number;
  /** How the daemon isolates connector servers, as `GET /v1/connectors` answers it. */
  readonly sandbox?: DaemonSandbox;
  /** Every installed connector, as `GET /v1/connectors` answers it. */
  readonly connectors: readonly ConnectorEntry[];
  /** Every agent session, as `GET /v1/sessions` answers it. */
  readonly sessions: readonly SessionEntry[];
  /** True while the sessions of the previous daemon are being brought back. */
  readonly restoring: boolean;
}

function listOf<T>(body: unknown, field: string): T[] {
  const list = (body as Record<string, unknown> | null)?.[field];
  if (!Array.isArray(list)) throw new TuttiError('TUTTI_ERR_CLI_DAEMON_BAD_RESPONSE');
  return list as T[];
}

/** Asks the daemon for its connectors and sessions. */
export async function fetchStatus(home: string, daemon: DaemonConnection): Promise<DaemonStatus> {
  const [connectors, sessions] = await Promise.all([
    daemon.call('GET', '/v1/connectors'),
    daemon.call('GET', '/v1/sessions'),
  ]);
  const sandbox = daemonSandboxOf(connectors);
  return {
    home,
    pid: daemon.info.pid,
    ...(sandbox && { sandbox }),
    connectors: listOf<ConnectorEntry>(connectors, 'connectors'),
    sessions: listOf<SessionEntry>(sessions, 'sessions'),
    restoring: (sessions as { restoring?: unknown }).restoring === true,
  };
}

/** `label` and `lines` as an indented block: the label on the first line only. */
function block(label: string, lines: readonly string[]): string[] {
  return lines.map(
    (line, index) => `    ${(index === 0 ? label : '').padEnd(8)} ${printable(line)}`,
  );
}

/** One row of a table and the detail lines printed under it. */
interface Item {
  readonly row: readonly string[];
  readonly details: readonly string[];
}

/** `title`, then each item's row (columns padded to the widest cell) and its details. */
function section(title: string, items: readonly Item[]): string[] {
  const widths = items[0]!.row.map((_, column) =>
    Math.max(...items.map((item) => item.row[column]!.length)),
  );
  return [
    title,
    ...items.flatMap((item) => [
      `  ${item.row.map((cell, column) => printable(cell).padEnd(widths[column]!)).join('  ')}`.trimEnd(),
      ...item.details,
    ]),
  ];
}

function offers(runtime: NonNullable<ConnectorEntry['runtime']>): string {
  const parts: string[] = [];
  if (runtime.mcp) {
    const tools = runtime.toolCount ?? 0;
    parts.push(`${tools} MCP tool${tools === 1 ? '' : 's'} (${runtime.mcp})`);
  }
  if (runtime.cli) parts.push(`CLI (${runtime.cli})`);
  if (runtime.failures) parts.push(`${runtime.failures} failures in a row`);
  if (runtime.restarts) parts.push(`${runtime.restarts} restarts`);
  return parts.join(', ');
}

function connectorItem(connector: ConnectorEntry): Item {
  const { runtime } = connector;
  const state = runtime?.state ?? (connector.authReady === false ? 'needs-auth' : 'unknown');
  const version = runtime?.running?.version ?? connector.version ?? '';
  const row = [connector.key, state, version, runtime ? offers(runtime) : ''];
  const details: string[] = [];
  const reason = runtime?.lastError ?? (state === 'ready' ? undefined : runtime?.advice);
  if (reason) details.push(...block('reason', [reason]));
  if (runtime?.signIn) {
    details.push(
      ...block('sign in', [
        `its server wants a sign-in: the dashboard's Sign in button (tuttid dashboard), or POST /v1/connectors/${connector.key}/authorize`,
      ]),
    );
  }
  if (connector.credentialStore) {
    const where =
      connector.credentialStore === 'keychain'
        ? 'the OS keychain'
        : 'a 0600 file of the tutti home';
    details.push(...block('secrets', [`kept in ${where}`]));
  }
  if (connector.sandbox)
    details.push(...block('sandbox', connectorSandboxLines(connector.sandbox)));
  if (runtime?.pending) {
    const { version: next, reason: why } = runtime.pending;
    details.push(...block('pending', [`${next ?? 'a new release'}${why ? `: ${why}` : ''}`]));
  }
  if (runtime?.stderr?.length) details.push(...block('stderr', runtime.stderr));
  return { row, details };
}

function sessionItem(session: SessionEntry): Item {
  const connector = session.connector ? `connector ${session.connector}` : '';
  const row = [session.id, session.provider, session.status, connector, session.permissions ?? ''];
  const details: string[] = [];
  if (session.reason) details.push(...block('reason', [session.reason]));
  if (session.exit?.description) details.push(...block('exit', [session.exit.description]));
  if (session.exit?.stderr?.length) details.push(...block('stderr', session.exit.stderr));
  return { row, details };
}

/** The human form of `status`. */
export function renderStatus(status: DaemonStatus): string {
  const lines = [`tuttid is running (pid ${status.pid}) on ${status.home}`];
  if (status.sandbox) lines.push(`sandbox  ${printable(daemonSandboxLine(status.sandbox))}`);
  lines.push('');
  if (status.connectors.length === 0) {
    lines.push('connectors: none installed');
  } else {
    lines.push(
      ...section(`connectors (${status.connectors.length})`, status.connectors.map(connectorItem)),
    );
  }
  lines.push('');
  if (status.sessions.length === 0) {
    lines.push('agent sessions: none');
  } else {
    lines.push(
      ...section(`agent sessions (${status.sessions.length})`, status.sessions.map(sessionItem)),
    );
  }
  if (status.restoring)
    lines.push('  (the sessions of the previous daemon are still being restored)');
  return `${lines.join('\n')}\n`;
}
