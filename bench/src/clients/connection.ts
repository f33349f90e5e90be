/** What every bench client gives a bench: a checked `tools/call`, a request and a close. */

/** A connected MCP client. */
export interface Connection {
  /** `tools/call` of `tool`; resolves to the MCP tool result. */
  call(tool: string, args: Record<string, unknown>): Promise<ToolResult>;
  close(): Promise<void>;
}

/** A client that also sends any JSON-RPC request and resolves to its result. */
export interface RequestConnection extends Connection {
  request(method: string, params: Record<string, unknown>): Promise<unknown>;
}

/** The part of an MCP tool result the benches check. */
export interface ToolResult {
  readonly content?: readonly { readonly type?: string; readonly text?: string }[];
  readonly isError?: boolean;
}

/** Where a client connects: a URL, its headers and a name for errors. */
export interface Endpoint {
  readonly name?: string;
  readonly url: string;
  readonly headers: Record<string, string>;
}
