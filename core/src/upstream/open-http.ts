/**
 * `openHttpUpstream`: a remote Streamable HTTP MCP server, with era negotiation
 * (2026-07-28 when the server offers it, else the newest 2025 revision both sides know,
 * 2025-11-25 first) and credentials only in this client's request headers.
 */
import {
  type ClientOptions,
  type FetchLike,
  type JSONRPCMessage,
  SdkHttpError,
  StreamableHTTPClientTransport,
  type TransportSendOptions,
} from '@modelcontextprotocol/client';
import { TuttiError } from '../errors/index.js';
import type { TransportAuth } from '../oauth/types.js';
import { signInNeeded, unauthorizedStatus } from './http-status.js';
import { withTraceHeaders } from './trace-headers.js';
import type { UpstreamCommonOptions, UpstreamConnection } from './types.js';
import { connectUpstream } from './upstream-connection.js';

/**
 * MCP versions an HTTP upstream may answer; `auto` probes 2026-07-28 first, and the first
 * 2025 one (2025-11-25: URL-mode elicitation) is offered to a 2025 server, which answers
 * it or its own older revision.
 */
const HTTP_PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'];

/**
 * Protocol choice of an HTTP upstream: `2025-06-18` pins the 2025 era (the `initialize`
 * handshake at the newest 2025 revision the server knows), `2026-07-28` the modern one.
 */
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
  /**
   * OAuth of a signed-in (or signing-in) connector: its token on every request, one
   * refresh per rejected token. Its fetch replaces `fetch`. A request that needs a sign-in
   * fails with TUTTI_ERR_OAUTH_SIGN_IN_REQUIRED (the start too), one whose authorization
   * server is down with TUTTI_ERR_OAUTH_SERVER_UNREACHABLE.
   */
  auth?: TransportAuth;
}

/**
 * The Streamable HTTP transport of an OAuth connector: the SDK's auth errors (a 401 after
 * the refresh, a 403 asking for more scope) leave as TUTTI_ERR_OAUTH_SIGN_IN_REQUIRED.
 */
class OAuthHttpTransport extends StreamableHTTPClientTransport {
  constructor(
    url: URL,
    options: ConstructorParameters<typeof StreamableHTTPClientTransport>[1],
    private readonly key: string,
  ) {
    super(url, options);
  }

  override async send(message: JSONRPCMessage | JSONRPCMessage[], options?: TransportSendOptions) {
    try {
      return await super.send(message, options);
    } catch (error) {
      const reason = signInNeeded(error);
      if (reason === undefined) throw error;
      throw new TuttiError(
        'TUTTI_ERR_OAUTH_SIGN_IN_REQUIRED',
        { key: this.key, reason },
        { cause: error },
      );
    }
  }
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
  const { auth } = options;
  const transport = auth
    ? new OAuthHttpTransport(
        url,
        {
          requestInit: { headers: { ...options.headers } },
          authProvider: auth.authProvider,
          fetch: withTraceHeaders(auth.fetch),
          onInsufficientScope: 'throw',
        },
        auth.key,
      )
    : new StreamableHTTPClientTransport(url, {
        requestInit: { headers: { ...options.headers } },
        fetch: withTraceHeaders(options.fetch ?? ((url, init) => fetch(url, init))),
      });
  return connectUpstream(
    {
      target: describeUrl(url),
      transport,
      network: 'tcp',
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
