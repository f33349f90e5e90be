/**
 * The control API of a bench `tuttid`: its token from the daemon file, JSON requests, the
 * sessions as `GET /v1/sessions` lists them, and the wait for a session's first
 * `tools/list` on the `connector` server.
 */
import type { McpBinding } from '@tutti/test-kit';
import { controlClient, readControlToken } from '@tutti/test-kit/tuttid';
import type { Tuttid } from './daemon-process.js';

/** The `connector` server binding of a prepared runtime. */
export type Binding = McpBinding;

/** A session as `GET /v1/sessions` lists it (the fields the benches read). */
export interface SessionInfo {
  readonly id: string;
  readonly toolsListed?: { readonly at: number };
  /** The refresh strategy used the last time the tool list changed. */
  readonly lastRefresh?: { readonly strategy: string };
  /** Milliseconds of each step of the session's last start. */
  readonly startSteps?: Readonly<Record<string, number>>;
}

/** The answer of `POST /v1/sessions`. */
export interface StartAnswer {
  readonly session: SessionInfo;
  readonly runtime: { readonly mcpServers: readonly Binding[] };
}

/** One request to the control API; resolves to its JSON answer, throws unless 200. */
export type Control = <T = unknown>(method: string, path: string, body?: unknown) => Promise<T>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The control token of the daemon on `home`. */
export const controlToken = readControlToken;

/** The control API of a started daemon: throws on any answer but 200. */
export async function controlOf(daemon: Tuttid, home: string): Promise<Control> {
  const control = controlClient(daemon.ready.controlUrl, await readControlToken(home));
  return async <T>(method: string, path: string, body?: unknown): Promise<T> => {
    const answer = await control(method, path, body);
    if (answer.status !== 200) {
      throw new Error(`${method} ${path}: ${JSON.stringify(answer.body)}`);
    }
    return answer.body as T;
  };
}

/** The session `id` as listed now. */
export async function sessionOf(control: Control, id: string): Promise<SessionInfo | undefined> {
  const { sessions } = await control<{ sessions: SessionInfo[] }>('GET', '/v1/sessions');
  return sessions.find((session) => session.id === id);
}

/**
 * The session once its agent was answered a `tools/list` at or after `since` (ms since the
 * epoch, the daemon's clock); throws after about `timeoutMs`.
 */
export async function listedSession(
  control: Control,
  id: string,
  since = 0,
  timeoutMs = 60_000,
): Promise<SessionInfo & { toolsListed: { at: number } }> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const session = await sessionOf(control, id);
    const at = session?.toolsListed?.at;
    if (session && at !== undefined && at >= since) {
      return session as SessionInfo & { toolsListed: { at: number } };
    }
    if (Date.now() > deadline) {
      const { provider, status, reason, exit } = (session ?? {}) as Record<string, unknown>;
      throw new Error(
        `session ${id} (${provider}) did not list its tools within ${timeoutMs} ms: ${JSON.stringify({ status, reason, exit })}`,
      );
    }
    await sleep(5);
  }
}
