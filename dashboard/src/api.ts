/**
 * Calls to the daemon's dashboard API (`/dashboard/api/*`), each with this tab's session
 * token in `Authorization` (see credential.ts); no cookie is sent or set. Also the login
 * (a one-time code traded for a token) and the logout.
 */
import type { AuditOutcome, AuditRecord } from '../../core/src/audit/types';
import type { ConnectorSandboxView } from '../../core/src/sandbox/types';
import type { PendingElicitationInfo } from '../../core/src/session/pending-elicitation';
import { forgetSessionToken, keepSessionToken, sessionToken } from './credential';

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

/** Tells the page its session is gone: the token is forgotten. */
export function signedOut(): void {
  forgetSessionToken();
  onSignedOut();
}

/** The headers that carry this tab's session. */
export function authorization(): Record<string, string> {
  const token = sessionToken();
  return token ? { authorization: `Bearer ${token}` } : {};
}

/** `method path` (of the daemon) with an optional JSON body; its JSON answer. */
async function send<T>(
  method: string,
  path: string,
  body?: unknown,
  signal?: AbortSignal,
): Promise<T> {
  const response = await fetch(path, {
    method,
    credentials: 'omit',
    ...(signal && { signal }),
    headers: {
      ...authorization(),
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
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
  throw new ApiError(response.status, error.code, error.message);
}

/** `method /dashboard/api<path>` with an optional JSON body; its JSON answer. */
export async function call<T>(
  method: string,
  path: string,
  body?: unknown,
  signal?: AbortSignal,
): Promise<T> {
  try {
    return await send<T>(method, `/dashboard/api${path}`, body, signal);
  } catch (error) {
    if (error instanceof ApiError && error.code === 'TUTTI_ERR_DASHBOARD_SIGNED_OUT') signedOut();
    throw error;
  }
}

/** Trades a one-time login code for this tab's session; throws the daemon's error. */
export async function login(code: string): Promise<void> {
  const { token } = await send<{ token: string }>('POST', '/dashboard/login', { code });
  keepSessionToken(token);
}

/** Ends the dashboard session, at the daemon and in this tab. */
export async function logout(): Promise<void> {
  await send('POST', '/dashboard/logout').catch(() => undefined);
  forgetSessionToken();
}

/** Shapes the page reads (see docs/control-api.md; optional fields may be absent). */
export interface RuntimeEvent {
  readonly at: string;
  readonly kind: string;
  readonly detail?: string;
}
/** A release of a connector, as its status names it. */
export interface ReleaseRef {
  readonly version: string;
  readonly revision: number;
}
export interface ConnectorRuntime {
  readonly state: string;
  /** The release serving now. */
  readonly running?: ReleaseRef;
  /** The installed release while it has not run, and why. */
  readonly pending?: ReleaseRef & { readonly reason: string };
  readonly parked?: boolean;
  readonly toolCount: number;
  readonly restarts: number;
  readonly failures: number;
  readonly lastError?: string;
  readonly advice?: string;
  /** It waits for a sign-in to its remote server (the Sign in button), not a credential. */
  readonly signIn?: boolean;
  readonly stderr?: readonly string[];
  readonly mcp?: string;
  readonly cli?: string;
}
/** How the daemon isolates connector servers (docs/sandbox.md). */
export interface DaemonSandbox {
  readonly mode: 'auto' | 'required' | 'off';
  /** The platform that isolates servers, when one does. */
  readonly platform?: string;
  /** Why servers are not isolated although the mode asks for it. */
  readonly unavailable?: string;
}
/** How one connector's stdio server runs: core's own view (type-only, erased from the build). */
export type SandboxView = ConnectorSandboxView;
export interface Connector {
  readonly key: string;
  readonly name: string;
  readonly version: string;
  readonly authKind: string;
  readonly authReady: boolean;
  /** Its stdio server's isolation, when it has one. */
  readonly sandbox?: SandboxView;
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
  readonly permissions: string;
  readonly status: string;
  readonly connector: string;
  readonly lastRefresh?: { version: number; strategy?: string; error?: string };
  readonly toolsListed?: { version: number; toolCount: number; at: number };
  readonly reason?: string;
  readonly exit?: { code: number | null; signal: string | null; description?: string };
}
/**
 * A question an upstream asks the person through a live session's agent, not answered yet
 * (`GET /dashboard/api/elicitations`): core's own type (type-only).
 */
export type PendingElicitation = PendingElicitationInfo;
/** How a call ended: core's own type (type-only, erased from the page's build). */
export type ToolCallOutcome = AuditOutcome;

/**
 * One audit record of a `tools/call` (`GET /dashboard/api/audit`): core's `AuditRecord`
 * without the captured values (`arguments`, `result`), which the route leaves out and the
 * page never shows.
 */
export type ToolCallRecord = Omit<AuditRecord, 'arguments' | 'result'>;

/**
 * One installed ACP agent (`GET /dashboard/api/agents`, see docs/control-api.md#agents):
 * core's `AgentListing` (core/src/agents/types.ts, which the page cannot import: it names
 * Node's types) with whether sessions can use it (its provider is registered, else why not).
 */
export interface Agent {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly version: string;
  readonly source: 'registry' | 'extension';
  /** The verified extension: its pinned version, its agent key and the files it declared. */
  readonly extension?: {
    readonly version: string;
    readonly agent: string;
    readonly files: readonly string[];
  };
  readonly provider: { readonly registered: boolean; readonly problem?: string };
  /** Bytes on disk under `<home>/agents/<id>/`. */
  readonly sizeBytes: number;
  readonly installedAt: string;
}
