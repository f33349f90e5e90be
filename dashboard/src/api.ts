/**
 * Calls to the daemon's dashboard API (`/dashboard/api/*`), authorized by the HttpOnly
 * session cookie the browser sends by itself: the page never sees a token.
 */

/** An error answer of the daemon: its code and message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

let onSignedOut: () => void = () => undefined;

/** Called whenever an answer says the session is gone. */
export function whenSignedOut(listener: () => void): void {
  onSignedOut = listener;
}

/** `method /dashboard/api<path>` with an optional JSON body; its JSON answer. */
export async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
  const response = await fetch(`/dashboard/api${path}`, {
    method,
    credentials: 'same-origin',
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const answer = (await response.json().catch(() => ({}))) as {
    error?: { code: string; message: string };
  };
  if (response.ok) return answer as T;
  const error = answer.error ?? {
    code: 'HTTP',
    message: `The daemon answered ${response.status}.`,
  };
  if (error.code === 'TUTTI_ERR_DASHBOARD_SIGNED_OUT') onSignedOut();
  throw new ApiError(response.status, error.code, error.message);
}

/** Ends the dashboard session (the cookie is cleared by the answer). */
export async function logout(): Promise<void> {
  await fetch('/dashboard/logout', { method: 'POST', credentials: 'same-origin' });
}

/** Shapes the page reads (see docs/control-api.md; optional fields may be absent). */
export interface RuntimeEvent {
  readonly at: string;
  readonly kind: string;
  readonly detail?: string;
}
export interface ConnectorRuntime {
  readonly state: string;
  readonly toolCount: number;
  readonly restarts: number;
  readonly failures: number;
  readonly lastError?: string;
  readonly advice?: string;
  readonly stderr?: readonly string[];
  readonly mcp?: string;
  readonly cli?: string;
}
export interface Connector {
  readonly key: string;
  readonly name: string;
  readonly version: string;
  readonly authKind: string;
  readonly authReady: boolean;
  readonly runtime: ConnectorRuntime | null;
  readonly recentEvents: readonly RuntimeEvent[];
}
export interface Tool {
  readonly name: string;
  readonly description: string;
}
export interface Session {
  readonly id: string;
  readonly workspaceId: string;
  readonly provider: string;
  readonly mode: string;
  readonly status: string;
  readonly connector: string;
  readonly lastRefresh?: { version: number; strategy?: string; error?: string };
  readonly toolsListed?: { version: number; toolCount: number; at: number };
  readonly reason?: string;
  readonly exit?: { code: number | null; signal: string | null; description?: string };
}
