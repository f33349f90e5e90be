/**
 * `tools/call` and `tools/list` over the registry, shared by both surfaces. A call checks
 * its params, resolves its immutable binding once at its start (an unknown tool or a fenced
 * generation is an error, never a fallback) and hands the arguments to the upstream
 * unchanged with the request's signal; the upstream settles the call, abort included, and
 * its result passes through as it came (the upstream layer checked it).
 */
import type { CallSignal, UpstreamCallResult } from '../contracts/index.js';
import { TuttiError } from '../errors/index.js';
import type { ConnectorMCPRegistry } from '../registry/types.js';
import { isPlainObject } from '../util/objects.js';
import { RpcCode } from './constants.js';
import type { AbortCause } from './in-flight-calls.js';
import { RpcError } from './json-rpc.js';
import { createToolsPageBytes } from './tools-page-bytes.js';

/** Longest upstream error text carried into a client-facing message. */
const REASON_LIMIT = 300;

const TOOLS_HEAD = Buffer.from('{"tools":', 'utf8');

/** The tools of one server. */
export interface Tools {
  /**
   * Runs `tools/call` with `params` (the request's), cancelled by `signal`. Rejects with an
   * {@link RpcError} for bad params or a cancelled call, a TuttiError for arguments nested
   * too deep, an unknown or fenced tool, an upstream failure or shutdown.
   */
  call(params: unknown, signal: CallSignal): Promise<UpstreamCallResult>;
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

function aborted(cause: unknown, localName: string): Error {
  if ((cause as AbortCause) === 'shutdown') {
    return new TuttiError('TUTTI_ERR_SERVER_SHUTTING_DOWN', { localName });
  }
  return new RpcError(RpcCode.RequestCancelled, `The call of tool "${localName}" was cancelled.`);
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

function reasonOf(error: unknown): string {
  const text = error instanceof Error ? error.message : String(error);
  const oneLine = text.replace(/\s+/g, ' ').trim() || 'the upstream call failed';
  return oneLine.length > REASON_LIMIT ? `${oneLine.slice(0, REASON_LIMIT)}...` : oneLine;
}

/** The tools of one server, with its own page cache. */
export function createTools(options: ToolsOptions): Tools {
  const { registry, pageSize, maxArgumentDepth } = options;
  const pageBytes = createToolsPageBytes();
  return {
    async call(params, signal) {
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
      if (signal.aborted) throw aborted(signal.reason, name);
      try {
        return await binding.client.callTool(binding.upstreamName, args, { signal });
      } catch (error) {
        if (signal.aborted) throw aborted(signal.reason, name);
        throw new TuttiError(
          'TUTTI_ERR_SERVER_UPSTREAM_FAILED',
          { key: binding.connectorKey, tool: binding.upstreamName, reason: reasonOf(error) },
          { cause: error },
        );
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
