/**
 * `tools/call` and `tools/list` over the registry, shared by both surfaces. A call checks
 * its params, resolves its immutable binding once at its start (an unknown tool or a fenced
 * generation is an error, never a fallback) and hands the arguments to the upstream
 * unchanged with the request's signal. The upstream settles the call, abort included: its
 * result passes through as it came (the upstream layer checked it), and so does its error,
 * which already carries its own code (a timeout, a rejection, a server that ended, a
 * cancel); the edge (`json-rpc.ts`) converts it for the wire.
 */
import type { ToolBinding, UpstreamCallOptions, UpstreamCallResult } from '../contracts/index.js';
import { isTuttiError, TuttiError } from '../errors/index.js';
import type { ConnectorMCPRegistry } from '../registry/types.js';
import { isPlainObject } from '../util/objects.js';
import { oneLine } from '../util/one-line.js';
import { RpcCode } from './constants.js';
import { RpcError } from './json-rpc.js';
import type { RequestScope } from './surface.js';
import { createToolsPageBytes } from './tools-page-bytes.js';

const TOOLS_HEAD = Buffer.from('{"tools":', 'utf8');

/** The tools of one server. */
export interface Tools {
  /**
   * Runs `tools/call` with `params` (the request's), cancelled by the scope's signal and
   * told to its observer; what the upstream asks goes to `elicit` and its progress to
   * `onProgress` (absent: the upstream is answered `cancel`, and is sent no progress
   * token); `onBinding` is told the binding the call resolved to, before the upstream call.
   * Rejects with an {@link RpcError} for bad params, a TuttiError for arguments nested too
   * deep, an unknown or fenced tool, or the upstream's own TuttiError for a call it did not
   * answer with a result (cancelled included).
   */
  call(
    params: unknown,
    scope: Pick<RequestScope, 'signal' | 'observed' | 'onBinding'> &
      Pick<UpstreamCallOptions, 'elicit' | 'onProgress'>,
  ): Promise<UpstreamCallResult>;
  /**
   * The `tools/list` result as chunks of JSON: the snapshot's prepared page bytes spliced
   * in as-is, then `tail` (extra members, each starting with a comma).
   */
  list(params: unknown, tail?: string): Buffer[];
}

/** Options of {@link createTools}. */
export interface ToolsOptions {
  readonly registry: ConnectorMCPRegistry;
  readonly pageSize: number;
  /** Deepest nesting of objects and arrays accepted in arguments (the object is level 1). */
  readonly maxArgumentDepth: number;
}

function invalidParams(message: string): RpcError {
  return new RpcError(RpcCode.InvalidParams, `Invalid params: ${message}`);
}

/**
 * True when `args` nests objects and arrays deeper than `limit` levels. Iterative, so a
 * hostile depth cannot overflow the stack here either; it stops at the first node too deep.
 */
function deeperThan(args: Record<string, unknown>, limit: number): boolean {
  // Most arguments hold no object or array at all: answered without allocating.
  let flat = true;
  for (const key in args) {
    const value = args[key];
    if (value !== null && typeof value === 'object') {
      flat = false;
      break;
    }
  }
  if (flat) return limit < 1;
  const nodes: unknown[] = [args];
  const depths: number[] = [1];
  while (nodes.length > 0) {
    const node = nodes.pop() as object;
    const depth = depths.pop() as number;
    if (depth > limit) return true;
    const children = Array.isArray(node) ? node : Object.values(node);
    for (const child of children) {
      if (child !== null && typeof child === 'object') {
        nodes.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/**
 * The error of a client that broke the `UpstreamClient` contract by rejecting with
 * something other than a TuttiError: the one conversion of such a failure.
 */
function foreignFailure(error: unknown, binding: ToolBinding): TuttiError {
  const text = error instanceof Error ? error.message : String(error);
  return new TuttiError(
    'TUTTI_ERR_UPSTREAM_CALL_FAILED',
    { target: binding.connectorKey, tool: binding.upstreamName, reason: oneLine(text) },
    { cause: error },
  );
}

/** The tools of one server, with its own page cache. */
export function createTools(options: ToolsOptions): Tools {
  const { registry, pageSize, maxArgumentDepth } = options;
  const pageBytes = createToolsPageBytes();
  return {
    async call(params, { signal, observed, elicit, onProgress, onBinding }) {
      if (!isPlainObject(params) || typeof params.name !== 'string') {
        throw invalidParams('tools/call needs a string "name"');
      }
      const name = params.name;
      const args = params.arguments;
      if (args !== undefined && !isPlainObject(args)) {
        throw invalidParams('"arguments" must be an object');
      }
      if (args !== undefined && deeperThan(args, maxArgumentDepth)) {
        throw new TuttiError('TUTTI_ERR_SERVER_ARGUMENTS_TOO_DEEP', {
          localName: name,
          limit: maxArgumentDepth,
        });
      }
      const binding = registry.resolve(name);
      if (!binding) throw new TuttiError('TUTTI_ERR_REGISTRY_UNKNOWN_TOOL', { localName: name });
      if (!binding.isCurrent()) {
        throw new TuttiError('TUTTI_ERR_REGISTRY_ROUTE_FENCED', {
          key: binding.connectorKey,
          generation: binding.generation,
        });
      }
      onBinding?.(binding);
      const meta = observed?.upstream(binding);
      try {
        const callOptions: UpstreamCallOptions = { signal };
        if (meta !== undefined) callOptions.meta = meta;
        if (elicit !== undefined) callOptions.elicit = elicit;
        if (onProgress !== undefined) callOptions.onProgress = onProgress;
        const result = await binding.client.callTool(binding.upstreamName, args, callOptions);
        observed?.upstreamEnded(result, undefined);
        return result;
      } catch (error) {
        const failure = isTuttiError(error) ? error : foreignFailure(error, binding);
        observed?.upstreamEnded(undefined, failure);
        throw failure;
      }
    },

    list(params, tail = '') {
      const cursor = isPlainObject(params) ? params.cursor : undefined;
      if (cursor !== undefined && typeof cursor !== 'string') {
        throw invalidParams('"cursor" must be a string');
      }
      const page = pageBytes(registry.snapshot(), cursor, pageSize);
      const next =
        page.nextCursor === undefined ? '' : `,"nextCursor":${JSON.stringify(page.nextCursor)}`;
      return [TOOLS_HEAD, page.bytes, Buffer.from(`${next}${tail}}`, 'utf8')];
    },
  };
}
