/**
 * JSON-RPC framing of the `connector` server's answers. Results are built as strings (or
 * byte chunks) so a prepared `tools/list` page is spliced in without being parsed or
 * serialized again.
 */

/** A JSON-RPC request id. */
export type RpcId = string | number;

/** A JSON-RPC error with the HTTP status it is answered with. */
export class RpcError extends Error {
  readonly code: number;
  readonly httpStatus: number;
  readonly data?: unknown;

  constructor(
    code: number,
    message: string,
    options: { httpStatus?: number; data?: unknown } = {},
  ) {
    super(message);
    this.name = 'RpcError';
    this.code = code;
    this.httpStatus = options.httpStatus ?? 200;
    this.data = options.data;
  }
}

const CLOSE = Buffer.from('}', 'utf8');

/**
 * A JSON-RPC response whose `result` is the given (already serialized) JSON: text, or
 * UTF-8 chunks (then the response is one Buffer, copied once).
 */
export function resultResponse(id: RpcId, resultJson: string): string;
export function resultResponse(id: RpcId, resultJson: string | readonly Buffer[]): string | Buffer;
export function resultResponse(id: RpcId, resultJson: string | readonly Buffer[]): string | Buffer {
  const head = `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":`;
  if (typeof resultJson === 'string') return `${head}${resultJson}}`;
  return Buffer.concat([Buffer.from(head, 'utf8'), ...resultJson, CLOSE]);
}

/** A JSON-RPC error response; `id` is null when the request's id is unknown. */
export function errorResponse(id: RpcId | null | undefined, error: RpcError): string {
  const body: { code: number; message: string; data?: unknown } = {
    code: error.code,
    message: error.message,
  };
  if (error.data !== undefined) body.data = error.data;
  return JSON.stringify({ jsonrpc: '2.0', id: id ?? null, error: body });
}

/** The id of a JSON-RPC message body, when it has a valid one. */
export function idOf(body: unknown): RpcId | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined;
  const id = (body as { id?: unknown }).id;
  return typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id))
    ? id
    : undefined;
}
