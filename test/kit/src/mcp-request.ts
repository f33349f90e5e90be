/**
 * A raw MCP call: one JSON-RPC request POSTed to an MCP server as a plain HTTP client (no
 * SDK, no `initialize`), on the stateless 2025-06-18 surface unless told otherwise. Tests
 * use it to see exactly what the `connector` server answers.
 */

/** Where a request goes: a server's URL and the headers a session got (its bearer token). */
export interface McpBinding {
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** Options of {@link mcpRequest}. */
export interface McpRequestOptions {
  /** The JSON-RPC id (default 1). */
  readonly id?: number | string;
  /** The `mcp-protocol-version` header (default `2025-06-18`). */
  readonly protocolVersion?: string;
}

/** The HTTP status and the JSON-RPC answer (the first SSE `data:` message of a stream). */
export interface McpAnswer {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: answers are JSON checked by each test's assertions
  readonly body: any;
}

/** Sends `method` with `params` to `binding` and resolves with the status and the answer. */
export async function mcpRequest(
  binding: McpBinding,
  method: string,
  params: unknown = {},
  { id = 1, protocolVersion = '2025-06-18' }: McpRequestOptions = {},
): Promise<McpAnswer> {
  const response = await fetch(binding.url, {
    method: 'POST',
    headers: {
      ...binding.headers,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': protocolVersion,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id, method, params }),
  });
  const text = await response.text();
  const data = response.headers.get('content-type')?.startsWith('text/event-stream')
    ? text
        .split('\n')
        .find((line) => line.startsWith('data:'))
        ?.slice(5)
    : text;
  let body: unknown = text;
  try {
    body = JSON.parse(data ?? '');
  } catch {
    // Not JSON (an empty 202, a proxy's text): the test sees the text.
  }
  return { status: response.status, body };
}
