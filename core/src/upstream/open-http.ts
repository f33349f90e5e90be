/**
 * `openHttpUpstream`: a remote Streamable HTTP MCP server, with era negotiation
 * (2026-07-28 when the server offers it, else 2025-06-18) and credentials only in this
 * client's request headers.
 */
import {
  type ClientOptions,
  type FetchLike,
  SdkHttpError,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
import { unauthorizedStatus } from './http-status.js';
import type { UpstreamCommonOptions, UpstreamConnection } from './types.js';
import { connectUpstream } from './upstream-connection.js';

/** MCP versions an HTTP upstream may answer; the first 2025 one is offered to legacy servers. */
const HTTP_PROTOCOL_VERSIONS = ['2026-07-28', '2025-06-18', '2025-11-25', '2025-03-26'];

/** Protocol choice of an HTTP upstream. */
export type HttpUpstreamProtocol = '2025-06-18' | '2026-07-28' | 'auto';

/** Options of {@link openHttpUpstream}. */
export interface HttpUpstreamOptions extends UpstreamCommonOptions {
  url: string;
  /** Request headers, e.g. `Authorization`; sent by this client only, never logged. */
  headers?: Readonly<Record<string, string>>;
  /** `auto` (default) probes `server/discover` and falls back to `initialize`. */
  protocol?: HttpUpstreamProtocol;
  /** Custom fetch (tests, proxies). */
  fetch?: FetchLike;
  /** How often the server is pinged to notice it went away (default 5 s). */
  pingEveryMs?: number;
}

/**
 * How often a remote server is pinged: one that went away is noticed within about two of
 * these (a ping, and the time it is given to answer).
 */
export const REMOTE_PING_MS = 5_000;

function negotiation(protocol: HttpUpstreamProtocol): ClientOptions['versionNegotiation'] {
  if (protocol === '2026-07-28') return { mode: { pin: '2026-07-28' } };
  if (protocol === '2025-06-18') return { mode: 'legacy' };
  return { mode: 'auto' };
}

/** The URL without query, fragment or user info: safe for errors and logs. */
export function describeUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/**
 * Why a failed request means this connection is over, or undefined when it does not: the
 * server is unreachable, refused the credential (401/403), or no longer knows the session
 * (the server restarted): 404 as the spec says, or the 400 "No valid session ID" that
 * servers built on the v1 SDK example answer. The reason never quotes the server's answer.
 */
function hardFailure(error: unknown, sessionId: string | undefined): string | undefined {
  if (
    error instanceof TypeError &&
    /fetch failed|ECONNREFUSED|ECONNRESET/i.test(
      `${error.message} ${String((error as { cause?: unknown }).cause ?? '')}`,
    )
  ) {
    return error.message;
  }
  const refused = unauthorizedStatus(error);
  if (refused !== undefined) return `the server refused the credential (HTTP ${refused})`;
  if (error instanceof SdkHttpError && sessionId !== undefined) {
    const text = String((error.data as { text?: unknown } | undefined)?.text ?? '');
    if (error.status === 404 || (error.status === 400 && /session/i.test(text))) {
      return `the server no longer knows the session (HTTP ${error.status})`;
    }
  }
  return undefined;
}

/**
 * Connects, negotiates the era, and lists all tools within `startTimeoutMs`.
 * @example await openHttpUpstream({ url, headers: { Authorization: `Bearer ${key}` } });
 */
export async function openHttpUpstream(options: HttpUpstreamOptions): Promise<UpstreamConnection> {
  const url = new URL(options.url);
  const transport = new StreamableHTTPClientTransport(url, {
    requestInit: { headers: { ...options.headers } },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  return connectUpstream(
    {
      target: describeUrl(url),
      transport,
      clientOptions: {
        versionNegotiation: negotiation(options.protocol ?? 'auto'),
        supportedProtocolVersions: HTTP_PROTOCOL_VERSIONS,
      },
      exitInfo: () => undefined,
      hardFailure: (error) => hardFailure(error, transport.sessionId),
      pingEveryMs: options.pingEveryMs ?? REMOTE_PING_MS,
    },
    options,
  );
}
