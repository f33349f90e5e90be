/**
 * SEP-2243 header checks of the 2026-07-28 surface: the standard headers are present,
 * `Mcp-Name` names the called tool, and each `Mcp-Param-*` a tool declares matches its
 * argument.
 *
 * The SDK implements these rules only inside `createMcpHandler` for tools registered
 * through `McpServer` (which also re-validates arguments) and does not export them; an
 * aggregator must pass arguments to the upstream unchanged and knows its tools only as
 * JSON Schema, so the small rule set is written here, following the SDK's
 * `mcpParamHeaders.ts`: declarations are found along `properties` chains, a value present
 * in `arguments` needs its header, values may use the `=?base64?...?=` form, and integer
 * or number values compare numerically.
 */
import type { ToolsSnapshot } from '../registry/types.js';
import { isPlainObject } from '../util/objects.js';
import { RpcCode } from './constants.js';
import type { InboundRequest } from './inbound-message.js';
import { RpcError } from './json-rpc.js';

/** One `x-mcp-header` declaration in a tool's `inputSchema`. */
export interface McpHeaderDeclaration {
  /** Property path from the arguments root. */
  readonly path: readonly string[];
  /** The `{Name}` of `Mcp-Param-{Name}`, as declared. */
  readonly headerName: string;
  /** JSON Schema type of the declaring property. */
  readonly type: string | undefined;
}

/** Prefix of custom parameter headers. */
export const MCP_PARAM_HEADER_PREFIX = 'Mcp-Param-';

const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const BASE64_PREFIX = '=?base64?';
const BASE64_SUFFIX = '?=';
const CANONICAL_BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const CANONICAL_DECIMAL = /^-?\d+(\.\d+)?$/;

/** Every well-formed `x-mcp-header` declaration reachable through `properties`. */
export function scanMcpHeaderDeclarations(inputSchema: unknown): McpHeaderDeclaration[] {
  const found: McpHeaderDeclaration[] = [];
  const visit = (node: unknown, path: string[]): void => {
    if (node === null || typeof node !== 'object') return;
    const schema = node as Record<string, unknown>;
    const name = schema['x-mcp-header'];
    if (path.length > 0 && typeof name === 'string' && TOKEN.test(name)) {
      found.push({
        path,
        headerName: name,
        type: typeof schema.type === 'string' ? schema.type : undefined,
      });
    }
    const properties = schema.properties;
    if (properties !== null && typeof properties === 'object') {
      for (const [key, child] of Object.entries(properties)) visit(child, [...path, key]);
    }
  };
  visit(inputSchema, []);
  return found;
}

/** Decodes a header value, unwrapping the base64 form; undefined when that form is broken. */
export function decodeHeaderValue(value: string): string | undefined {
  if (!(value.startsWith(BASE64_PREFIX) && value.endsWith(BASE64_SUFFIX))) return value;
  const b64 = value.slice(BASE64_PREFIX.length, value.length - BASE64_SUFFIX.length);
  if (!CANONICAL_BASE64.test(b64)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(b64, 'base64'));
  } catch {
    return undefined;
  }
}

function primitiveString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number' && Number.isFinite(value)) return String(value);
  return undefined;
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** The 400 / -32020 rejection of a header that disagrees with the body. */
export function headerMismatch(header: string, problem: string): RpcError {
  return new RpcError(
    RpcCode.HeaderMismatch,
    `Bad Request: the request headers and body disagree: ${problem}`,
    { httpStatus: 400, data: { mismatch: { header, body: problem } } },
  );
}

/**
 * Checks the `Mcp-Param-*` headers of one `tools/call` against its arguments.
 * `header(name)` reads a request header case-insensitively.
 */
export function checkMcpParamHeaders(
  declarations: readonly McpHeaderDeclaration[],
  args: unknown,
  header: (name: string) => string | undefined,
): RpcError | undefined {
  for (const declaration of declarations) {
    const headerName = `${MCP_PARAM_HEADER_PREFIX}${declaration.headerName}`;
    const raw = valueAt(args, declaration.path);
    const expected = primitiveString(raw);
    // Absent, null or non-primitive values need no header (argument checks are upstream's).
    if (raw === undefined || raw === null || expected === undefined) continue;
    const where = declaration.path.join('.');
    const value = header(headerName);
    if (value === undefined) {
      return headerMismatch(
        headerName,
        `the body carries ${where}=${JSON.stringify(raw)} but the ${headerName} header is absent`,
      );
    }
    const decoded = decodeHeaderValue(value.trim());
    if (decoded === undefined) {
      return headerMismatch(headerName, `the ${headerName} header carries an invalid Base64 value`);
    }
    const numeric =
      (declaration.type === 'integer' || declaration.type === 'number') &&
      typeof raw === 'number' &&
      CANONICAL_DECIMAL.test(decoded);
    if (numeric ? Number(decoded) !== raw : decoded !== expected) {
      return headerMismatch(
        headerName,
        `the ${headerName} header decodes to ${JSON.stringify(decoded)} but the body carries ${where}=${JSON.stringify(raw)}`,
      );
    }
  }
  return undefined;
}

/** A request header, case-insensitively; undefined when absent. */
export type HeaderOf = (name: string) => string | undefined;

/** The header checks of one server, remembering each snapshot's declarations. */
export type McpHeaderChecks = (
  request: InboundRequest,
  snapshot: ToolsSnapshot,
  header: HeaderOf,
) => RpcError | undefined;

/** The presence checks of the standard headers, and `Mcp-Name` against the body. */
function checkStandardHeaders(
  method: string,
  name: unknown,
  header: HeaderOf,
): RpcError | undefined {
  if (header('mcp-protocol-version') === undefined) {
    return headerMismatch('(missing)', 'the required MCP-Protocol-Version header is absent');
  }
  if (header('mcp-method') === undefined) {
    return headerMismatch(
      '(missing)',
      `the body names method ${method} but the required Mcp-Method header is absent`,
    );
  }
  if (method !== 'tools/call' || typeof name !== 'string') return undefined;
  const value = header('mcp-name');
  if (value === undefined) {
    return headerMismatch(
      '(missing)',
      `the body carries params.name="${name}" but the required Mcp-Name header is absent`,
    );
  }
  const decoded = decodeHeaderValue(value.trim());
  if (decoded === undefined) {
    return headerMismatch(value, 'the Mcp-Name header carries an invalid Base64 sentinel value');
  }
  if (decoded !== name) {
    return headerMismatch(
      value,
      `the body carries params.name="${name}" but the Mcp-Name header names "${decoded}"`,
    );
  }
  return undefined;
}

/**
 * Every SEP-2243 check of one modern request, with the `x-mcp-header` declarations of the
 * tools scanned once per snapshot (kept per server, a WeakMap: they go with the snapshot).
 */
export function createMcpHeaderChecks(): McpHeaderChecks {
  const bySnapshot = new WeakMap<ToolsSnapshot, Map<string, McpHeaderDeclaration[]>>();
  const declarationsOf = (snapshot: ToolsSnapshot, name: string) => {
    let byName = bySnapshot.get(snapshot);
    if (!byName) {
      byName = new Map();
      for (const tool of snapshot.tools) {
        const found = scanMcpHeaderDeclarations(tool.inputSchema);
        if (found.length > 0) byName.set(tool.name, found);
      }
      bySnapshot.set(snapshot, byName);
    }
    return byName.get(name);
  };
  return (request, snapshot, header) => {
    const params = isPlainObject(request.params) ? request.params : undefined;
    const name = params?.name;
    const mismatch = checkStandardHeaders(request.method, name, header);
    if (mismatch || request.method !== 'tools/call' || typeof name !== 'string') return mismatch;
    const declarations = declarationsOf(snapshot, name);
    return declarations && checkMcpParamHeaders(declarations, params?.arguments, header);
  };
}
