/**
 * `tools/call` and `tools/list` over the registry, shared by both surfaces. A call resolves
 * its immutable binding once at its start; an unknown tool or a fenced generation is a
 * JSON-RPC error, never a fallback. Upstream results pass through unchanged.
 */
import type { CallSignal, UpstreamCallResult } from '../contracts/index.js';
import { isTuttiError, TuttiError } from '../errors/index.js';
import type { ConnectorMCPRegistryApi } from '../registry/types.js';
import { RpcCode } from './constants.js';
import type { AbortCause } from './in-flight-calls.js';
import { isPlainObject } from '../util/objects.js';
import { RpcError } from './json-rpc.js';
import { type ToolsPageBytes, toolsPageBytes } from './tools-page-bytes.js';

/** Longest upstream error text carried into a client-facing message. */
const REASON_LIMIT = 300;

/** A JSON-RPC error carrying a tutti error's message and code. */
export function rpcErrorOf(code: number, error: TuttiError, httpStatus = 200): RpcError {
  return new RpcError(code, error.message, { httpStatus, data: { code: error.code } });
}

/** The validated `name` and `arguments` of `tools/call` params. */
export function toolCallParams(params: unknown): {
  name: string;
  args: Record<string, unknown> | undefined;
} {
  if (!isPlainObject(params) || typeof params.name !== 'string') {
    throw new RpcError(RpcCode.InvalidParams, 'Invalid params: tools/call needs a string "name"');
  }
  const args = params.arguments;
  if (args !== undefined && !isPlainObject(args)) {
    throw new RpcError(RpcCode.InvalidParams, 'Invalid params: "arguments" must be an object');
  }
  return { name: params.name, args };
}

function abortError(cause: unknown, localName: string): RpcError {
  if ((cause as AbortCause) === 'shutdown') {
    return rpcErrorOf(
      RpcCode.InternalError,
      new TuttiError('TUTTI_ERR_SERVER_SHUTTING_DOWN', { localName }),
    );
  }
  return new RpcError(RpcCode.RequestCancelled, `The call of tool "${localName}" was cancelled.`);
}

function reasonOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const oneLine = text.replace(/\s+/g, ' ').trim() || 'the upstream call failed';
  return oneLine.length > REASON_LIMIT ? `${oneLine.slice(0, REASON_LIMIT)}...` : oneLine;
}

/**
 * Calls the tool `name` upstream with `args` unchanged. Rejects with an {@link RpcError}
 * for an unknown or fenced tool, an upstream failure, or an abort of `signal`.
 */
export function callTool(
  registry: ConnectorMCPRegistryApi,
  name: string,
  args: Record<string, unknown> | undefined,
  signal: CallSignal,
): Promise<UpstreamCallResult> {
  const binding = registry.resolve(name);
  if (!binding) {
    return Promise.reject(
      rpcErrorOf(
        RpcCode.InvalidParams,
        new TuttiError('TUTTI_ERR_REGISTRY_UNKNOWN_TOOL', { localName: name }),
      ),
    );
  }
  if (!binding.isCurrent()) {
    return Promise.reject(
      rpcErrorOf(
        RpcCode.InvalidParams,
        new TuttiError('TUTTI_ERR_REGISTRY_ROUTE_FENCED', {
          key: binding.connectorKey,
          generation: binding.generation,
        }),
      ),
    );
  }
  if (signal.aborted) return Promise.reject(abortError(signal.reason, name));
  const failure = (error: unknown): RpcError => {
    if (error instanceof RpcError) return error;
    if (signal.aborted) return abortError(signal.reason, name);
    return rpcErrorOf(
      RpcCode.InternalError,
      new TuttiError('TUTTI_ERR_SERVER_UPSTREAM_FAILED', {
        key: binding.connectorKey,
        tool: binding.upstreamName,
        reason: reasonOf(error),
      }),
    );
  };
  // One promise that the upstream's answer or the abort settles, whichever comes first: an
  // upstream that ignores its signal must not hold the answer. (Not Promise.race over a
  // second promise: this runs on every call.)
  return new Promise<UpstreamCallResult>((resolve, reject) => {
    const onAbort = () => reject(abortError(signal.reason, name));
    signal.addEventListener('abort', onAbort, { once: true });
    const settle = (error: unknown, result?: UpstreamCallResult) => {
      signal.removeEventListener('abort', onAbort);
      if (error !== undefined) reject(failure(error));
      else if (!isPlainObject(result) || !Array.isArray(result.content)) {
        reject(failure(new Error('the result is not an MCP tool result (no content array)')));
      } else resolve(result);
    };
    let call: Promise<UpstreamCallResult>;
    try {
      call = binding.client.callTool(binding.upstreamName, args, { signal });
    } catch (error) {
      settle(error ?? new Error('the upstream call threw'));
      return;
    }
    call.then(
      (result) => settle(undefined, result),
      (error: unknown) => settle(error ?? new Error('the upstream call failed')),
    );
  });
}

const TOOLS_HEAD = Buffer.from('{"tools":', 'utf8');

/**
 * The `tools/list` result as chunks of JSON: the snapshot's prepared page bytes spliced in
 * as-is, then `tail` (extra members, each starting with a comma).
 */
export function toolsListResult(
  registry: ConnectorMCPRegistryApi,
  params: unknown,
  pageSize: number,
  tail = '',
): Buffer[] {
  const cursor = isPlainObject(params) ? params.cursor : undefined;
  if (cursor !== undefined && typeof cursor !== 'string') {
    throw new RpcError(RpcCode.InvalidParams, 'Invalid params: "cursor" must be a string');
  }
  let page: ToolsPageBytes;
  try {
    page = toolsPageBytes(registry.snapshot(), cursor, pageSize);
  } catch (error) {
    if (isTuttiError(error)) throw rpcErrorOf(RpcCode.InvalidParams, error);
    throw error;
  }
  const next =
    page.nextCursor === undefined ? '' : `,"nextCursor":${JSON.stringify(page.nextCursor)}`;
  return [TOOLS_HEAD, page.bytes, Buffer.from(`${next}${tail}}`, 'utf8')];
}
