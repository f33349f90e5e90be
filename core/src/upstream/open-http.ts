/**
 * `openHttpUpstream`: a remote Streamable HTTP MCP server, with era negotiation
 * (2026-07-28 when the server offers it, else 2025-06-18) and credentials only in this
 * client's request headers.
 */
import {
  type ClientOptions,
  type FetchLike,
  StreamableHTTPClientTransport,
} from '@modelcontextprotocol/client';
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
}

function negotiation(protocol: HttpUpstreamProtocol): ClientOptions['versionNegotiation'] {
  if (protocol === '2026-07-28') return { mode: { pin: '2026-07-28' } };
  if (protocol === '2025-06-18') return { mode: 'legacy' };
  return { mode: 'auto' };
}

/** The URL without query, fragment or user info: safe for errors and logs. */
export function describeUrl(url: URL): string {
  return `${url.origin}${url.pathname}`;
}

/** Network-level failures (no HTTP answer at all) that mean the upstream is unreachable. */
function isUnreachable(error: unknown): boolean {
  return (
    error instanceof TypeError &&
    /fetch failed|ECONNREFUSED|ECONNRESET/i.test(
      `${error.message} ${String((error as { cause?: unknown }).cause ?? '')}`,
    )
  );
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
      isHardFailure: isUnreachable,
    },
    options,
  );
}
