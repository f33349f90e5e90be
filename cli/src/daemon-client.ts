/**
 * How the `tutti` CLI reaches the running daemon: `<home>/run/daemon.json` names its pid,
 * control URL and control token, and `GET /v1/connectors/available` answers the spec 9.2
 * list. Every failure becomes a TuttiError whose message holds no URL, port or token.
 */
import { readFile } from 'node:fs/promises';
import {
  type ConnectorSummary,
  connectorSummarySchema,
  type DaemonInfo,
  daemonFilePath,
  TuttiError,
} from '@tutti/core/client';

/** The daemon's answer to `GET /v1/connectors/available` (spec 9.2). */
export interface AvailableConnectors {
  connectors: ConnectorSummary[];
}

const connectorListSchema = connectorSummarySchema.array();

/** How long the CLI waits for the daemon's answer. */
export const DAEMON_REQUEST_TIMEOUT_MS = 10_000;

const LOOPBACK_URL = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/.*)?$/;

/** Path of the daemon's control file in `home` (written by the daemon). */
export const daemonInfoPath = daemonFilePath;

function notRunning(): TuttiError {
  return new TuttiError('TUTTI_ERR_CLI_DAEMON_NOT_RUNNING');
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function parseDaemonInfo(text: string): DaemonInfo | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const { pid, controlUrl, controlToken } = (value ?? {}) as Record<string, unknown>;
  if (!Number.isSafeInteger(pid) || (pid as number) < 1) return undefined;
  if (typeof controlUrl !== 'string' || !LOOPBACK_URL.test(controlUrl)) return undefined;
  if (typeof controlToken !== 'string' || controlToken === '') return undefined;
  return { pid: pid as number, controlUrl, controlToken };
}

/**
 * The running daemon's control info, or undefined when no daemon runs for `home` (no
 * file, unreadable or malformed file, or a pid that is no longer alive).
 */
export async function readDaemonInfo(home: string): Promise<DaemonInfo | undefined> {
  let text: string;
  try {
    text = await readFile(daemonInfoPath(home), 'utf8');
  } catch {
    return undefined;
  }
  const info = parseDaemonInfo(text);
  return info && isAlive(info.pid) ? info : undefined;
}

function isConnectionRefused(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } } | undefined)?.cause;
  return cause?.code === 'ECONNREFUSED' || cause?.code === 'ECONNRESET';
}

async function request(info: DaemonInfo): Promise<Response> {
  const url = `${info.controlUrl.replace(/\/+$/, '')}/v1/connectors/available`;
  try {
    return await fetch(url, {
      headers: { authorization: `Bearer ${info.controlToken}`, accept: 'application/json' },
      signal: AbortSignal.timeout(DAEMON_REQUEST_TIMEOUT_MS),
      redirect: 'error',
    });
  } catch (error) {
    // The fetch error names the address; it is dropped on purpose, never chained as a cause.
    if (isConnectionRefused(error)) throw notRunning();
    const reason =
      (error as Error | undefined)?.name === 'TimeoutError'
        ? `no answer within ${DAEMON_REQUEST_TIMEOUT_MS / 1000} s`
        : 'the connection failed';
    throw new TuttiError('TUTTI_ERR_CLI_DAEMON_REJECTED', { reason });
  }
}

/**
 * Asks the daemon running for `home` which connectors are available.
 * Throws TUTTI_ERR_CLI_DAEMON_NOT_RUNNING, _REJECTED or _BAD_RESPONSE.
 */
export async function fetchAvailableConnectors(home: string): Promise<AvailableConnectors> {
  const info = await readDaemonInfo(home);
  if (!info) throw notRunning();
  const response = await request(info);
  if (!response.ok) {
    await response.body?.cancel();
    throw new TuttiError('TUTTI_ERR_CLI_DAEMON_REJECTED', { reason: `HTTP ${response.status}` });
  }
  let body: unknown;
  try {
    body = await response.json();
  } catch {
    throw new TuttiError('TUTTI_ERR_CLI_DAEMON_BAD_RESPONSE');
  }
  const parsed = connectorListSchema.safeParse(
    (body as { connectors?: unknown } | null)?.connectors,
  );
  if (!parsed.success) throw new TuttiError('TUTTI_ERR_CLI_DAEMON_BAD_RESPONSE');
  return { connectors: parsed.data };
}
