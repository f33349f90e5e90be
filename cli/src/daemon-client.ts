/**
 * How the `tutti` CLI and the operator commands of `tuttid` (`tuttid status`, `tuttid
 * dashboard`) reach the running daemon: `<home>/run/daemon.json` names its pid, control URL
 * and control token, and the control API answers (`GET /v1/connectors/available` the
 * documented list). Every failure becomes a TuttiError whose message holds no URL, port or
 * token.
 * `node:http`, not `fetch`: Node builds its fetch (undici) on first use, which a CLI call
 * pays for; and the answer is checked without zod for the same reason (figures in
 * docs/benchmarks.md).
 */
import { readFile } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import {
  type ConnectorSummary,
  type DaemonInfo,
  daemonFilePath,
  homeLockHolder,
  parseConnectorSummaries,
  TuttiError,
} from '@tutti/core/client';

/** The daemon's answer to `GET /v1/connectors/available` (docs/control-api.md). */
export interface AvailableConnectors {
  connectors: ConnectorSummary[];
}

/** How long the CLI waits for the daemon's answer. */
export const DAEMON_REQUEST_TIMEOUT_MS = 10_000;

const LOOPBACK_URL = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])(:\d+)?(\/.*)?$/;

/** Path of the daemon's control file in `home` (written by the daemon). */
export const daemonInfoPath = daemonFilePath;

/**
 * Why no daemon answers for `home`: one holds the home's lock but has not published its
 * control file yet (it is starting), or none runs.
 */
function notAnswering(home: string): TuttiError {
  const starting = homeLockHolder(home);
  return starting === undefined
    ? new TuttiError('TUTTI_ERR_CLI_DAEMON_NOT_RUNNING')
    : new TuttiError('TUTTI_ERR_CLI_DAEMON_STARTING', { pid: starting });
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

/** The daemon's answer: its HTTP status and its body text. */
interface DaemonAnswer {
  readonly status: number;
  readonly text: string;
}

/** Largest answer read from the daemon; a longer one is not a connector list of ours. */
const ANSWER_LIMIT = 16 * 1024 * 1024;

function request(
  home: string,
  info: DaemonInfo,
  method: 'GET' | 'POST',
  path: string,
): Promise<DaemonAnswer> {
  const url = new URL(`${info.controlUrl.replace(/\/+$/, '')}${path}`);
  return new Promise((resolve, reject) => {
    // A socket error names the address; it is dropped on purpose, never chained as a cause.
    const fail = (error: TuttiError) => {
      clearTimeout(timer);
      reject(error);
    };
    const rejected = (reason: string) =>
      fail(new TuttiError('TUTTI_ERR_CLI_DAEMON_REJECTED', { reason }));
    const outgoing = httpRequest(
      url,
      {
        method,
        headers: { authorization: `Bearer ${info.controlToken}`, accept: 'application/json' },
      },
      (response) => {
        const chunks: Buffer[] = [];
        let size = 0;
        response.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > ANSWER_LIMIT) response.destroy(new Error('answer too large'));
          else chunks.push(chunk);
        });
        response.on('error', () => rejected('the connection failed'));
        response.on('end', () => {
          clearTimeout(timer);
          resolve({
            status: response.statusCode ?? 0,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
      },
    );
    const timer = setTimeout(() => {
      outgoing.destroy();
      rejected(`no answer within ${DAEMON_REQUEST_TIMEOUT_MS / 1000} s`);
    }, DAEMON_REQUEST_TIMEOUT_MS);
    outgoing.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'ECONNREFUSED' || error.code === 'ECONNRESET') fail(notAnswering(home));
      else rejected('the connection failed');
    });
    outgoing.end();
  });
}

/** The daemon running for a home, as its control file names it. */
export interface DaemonConnection {
  readonly info: DaemonInfo;
  /**
   * Calls `path` of its control API and answers the parsed JSON body of a 2xx answer.
   * Throws TUTTI_ERR_CLI_DAEMON_NOT_RUNNING, _STARTING, _REJECTED or _BAD_RESPONSE.
   */
  call(method: 'GET' | 'POST', path: string): Promise<unknown>;
}

/**
 * The daemon running for `home`; throws TUTTI_ERR_CLI_DAEMON_NOT_RUNNING (or _STARTING
 * while it has not published its control file yet) when none answers.
 */
export async function connectToDaemon(home: string): Promise<DaemonConnection> {
  const info = await readDaemonInfo(home);
  if (!info) throw notAnswering(home);
  return {
    info,
    async call(method, path) {
      const answer = await request(home, info, method, path);
      // Redirects are not followed: the daemon never sends one, and the token stays with it.
      if (answer.status < 200 || answer.status > 299) {
        throw new TuttiError('TUTTI_ERR_CLI_DAEMON_REJECTED', { reason: `HTTP ${answer.status}` });
      }
      try {
        return JSON.parse(answer.text) as unknown;
      } catch {
        throw new TuttiError('TUTTI_ERR_CLI_DAEMON_BAD_RESPONSE');
      }
    },
  };
}

/**
 * Asks the daemon running for `home` which connectors are available.
 * Throws TUTTI_ERR_CLI_DAEMON_NOT_RUNNING, _STARTING, _REJECTED or _BAD_RESPONSE.
 */
export async function fetchAvailableConnectors(home: string): Promise<AvailableConnectors> {
  const daemon = await connectToDaemon(home);
  const body = await daemon.call('GET', '/v1/connectors/available');
  const connectors = parseConnectorSummaries((body as { connectors?: unknown } | null)?.connectors);
  if (!connectors) throw new TuttiError('TUTTI_ERR_CLI_DAEMON_BAD_RESPONSE');
  return { connectors };
}
