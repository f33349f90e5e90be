/**
 * Public shape of the ConnectorMCPRegistry: what the loopback server, the reconciler and
 * the debug endpoint rely on. The implementation lives beside this file.
 */
import type { ToolBinding, UpstreamClient, UpstreamTool } from '../contracts/index.js';

/** A tool exactly as the `connector` server lists it (MCP `Tool` with the local name). */
export interface ServedTool extends UpstreamTool {}

/** One page of a prepared `tools/list`, already serialized. */
export interface ToolsPage {
  /** JSON of the page's tools array, e.g. `[{"name":"gh_search",...}]`. */
  readonly toolsJson: string;
  /** Cursor of the next page, absent on the last page. */
  readonly nextCursor?: string;
}

/**
 * The visible tool list, prepared once per visible change: sorted by local name,
 * deterministic, and serialized so that serving it costs no re-serialization.
 */
export interface ToolsSnapshot {
  /** Increments exactly when the visible list changes. */
  readonly version: number;
  /** Served tools, sorted by name, frozen. */
  readonly tools: readonly ServedTool[];
  /** JSON of the whole tools array. */
  readonly toolsJson: string;
  /**
   * UTF-8 bytes of `toolsJson`, encoded once: write them to the socket between the
   * response's head and tail, as encoding a multi-megabyte string per request is O(bytes)
   * work again. Shared by every request, so never write into it.
   */
  readonly toolsJsonBytes: Buffer;
  /**
   * A page of at most `pageSize` tools starting at `cursor` (undefined: the first page).
   * Throws TUTTI_ERR_REGISTRY_BAD_CURSOR for a cursor this snapshot did not issue.
   */
  page(cursor: string | undefined, pageSize: number): ToolsPage;
}

/** Outcome of a successful commit. */
export interface CommitResult {
  readonly connectorKey: string;
  readonly generation: number;
  /** Local names of the committed tools, sorted. */
  readonly localNames: readonly string[];
  /** True when the visible list changed (and list-changed listeners were told). */
  readonly listChanged: boolean;
}

/** Routes, generations and tool counts, for `/debug/registry`; never holds secrets. */
export interface RegistryDebugSnapshot {
  readonly version: number;
  readonly toolCount: number;
  readonly routes: readonly {
    readonly connectorKey: string;
    readonly generation: number;
    readonly fence: number;
    readonly toolCount: number;
    readonly tools: readonly { localName: string; upstreamName: string }[];
  }[];
  /** Connectors removed whose fence is still kept (so a stale generation cannot return). */
  readonly fences: readonly { connectorKey: string; fence: number }[];
}

/**
 * The `connector` server's `instructions`: the instructions of every connector with a
 * route, prepared once per change (guidance/connector-instructions.ts). A new object,
 * with the next `version`, exactly when the text changes: a server caches what it builds
 * of it per version.
 */
export interface ServerInstructions {
  /** Increments exactly when `text` changes (0: no connector has sent any yet). */
  readonly version: number;
  /** The text, or undefined when no connector with a route has instructions. */
  readonly text: string | undefined;
}

/** Listener of visible tool-list changes. */
export type ListChangedListener = (snapshot: ToolsSnapshot) => void;

/** The generation-fenced registry of every ready connector's tools. */
export interface ConnectorMCPRegistry {
  /**
   * Atomically replaces `connectorKey`'s tool set with `tools` at `generation`, and its
   * part of the server's instructions with its upstream's `instructions` (absent: none).
   * Rejects a generation at or below the connector's fence, an invalid key, tool or
   * schema, and a name collision; on rejection the old route keeps serving unchanged.
   */
  commit(
    connectorKey: string,
    generation: number,
    client: UpstreamClient,
    tools: readonly UpstreamTool[],
    instructions?: string,
  ): CommitResult;
  /**
   * Fences `connectorKey` at `generation` and removes its route when the route's generation
   * is at or below it. Returns true when a route was removed.
   */
  remove(connectorKey: string, generation: number): boolean;
  /** The immutable binding of `localName`, or undefined when no current route serves it. */
  resolve(localName: string): ToolBinding | undefined;
  /** The current prepared snapshot. */
  snapshot(): ToolsSnapshot;
  /** The current server instructions (they change with routes, not with the snapshot). */
  instructions(): ServerInstructions;
  /** Subscribes to visible changes; returns the unsubscribe function. */
  onListChanged(listener: ListChangedListener): () => void;
  /** Routes, generations and counts, without secrets. */
  debugSnapshot(): RegistryDebugSnapshot;
}
