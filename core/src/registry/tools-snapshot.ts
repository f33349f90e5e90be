/**
 * The prepared `tools/list`: the visible tools in order, serialized once (lazily, on first
 * use) so that serving a list or a page only copies a slice of one prepared string.
 * Cursors are opaque and bound to the registry instance and the snapshot version.
 */
import { TuttiError } from '../errors/index.js';
import type { PreparedTool } from './connector-tools.js';
import type { ServedTool, ToolsPage, ToolsSnapshot } from './types.js';

const CURSOR_PATTERN = /^([0-9a-f]{8})\.(\d{1,15})\.(\d{1,15})$/;

function badCursor(): TuttiError {
  return new TuttiError('TUTTI_ERR_REGISTRY_BAD_CURSOR');
}

class PreparedToolsSnapshot implements ToolsSnapshot {
  readonly version: number;
  readonly #scope: string;
  readonly #prepared: readonly PreparedTool[];
  #tools: readonly ServedTool[] | undefined;
  #json: string | undefined;
  #bytes: Buffer | undefined;
  /** Index in the JSON where each tool's object starts. */
  #starts: number[] = [];

  constructor(scope: string, version: number, prepared: readonly PreparedTool[]) {
    this.#scope = scope;
    this.version = version;
    this.#prepared = prepared;
    Object.freeze(this);
  }

  get tools(): readonly ServedTool[] {
    this.#tools ??= Object.freeze(this.#prepared.map((tool) => tool.served));
    return this.#tools;
  }

  get toolsJson(): string {
    if (this.#json === undefined) {
      const parts: string[] = [];
      let at = 1;
      for (const tool of this.#prepared) {
        this.#starts.push(at);
        parts.push(tool.json);
        at += tool.json.length + 1;
      }
      this.#json = `[${parts.join(',')}]`;
    }
    return this.#json;
  }

  get toolsJsonBytes(): Buffer {
    this.#bytes ??= Buffer.from(this.toolsJson, 'utf8');
    return this.#bytes;
  }

  page(cursor: string | undefined, pageSize: number): ToolsPage {
    if (!Number.isSafeInteger(pageSize) || pageSize < 1) {
      throw new RangeError(`tools/list page size must be a positive integer, got ${pageSize}`);
    }
    const json = this.toolsJson;
    const count = this.#prepared.length;
    const from = cursor === undefined ? 0 : this.#offsetOf(cursor);
    const to = Math.min(from + pageSize, count);
    if (from === 0 && to === count) return { toolsJson: json };
    const end = to < count ? this.#starts[to]! - 1 : json.length - 1;
    const toolsJson = `[${json.slice(this.#starts[from], end)}]`;
    return to < count ? { toolsJson, nextCursor: this.#cursorAt(to) } : { toolsJson };
  }

  #cursorAt(offset: number): string {
    return Buffer.from(`${this.#scope}.${this.version}.${offset}`, 'utf8').toString('base64url');
  }

  #offsetOf(cursor: string): number {
    if (typeof cursor !== 'string' || cursor.length > 64) throw badCursor();
    const match = CURSOR_PATTERN.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (match === null || match[1] !== this.#scope || Number(match[2]) !== this.version) {
      throw badCursor();
    }
    const offset = Number(match[3]);
    if (offset < 1 || offset >= this.#prepared.length || this.#cursorAt(offset) !== cursor) {
      throw badCursor();
    }
    return offset;
  }
}

/**
 * A snapshot of `prepared` (already sorted by local name) at `version`; `scope` is the
 * 8-hex-digit id of the registry that issues its cursors.
 */
export function createToolsSnapshot(
  scope: string,
  version: number,
  prepared: readonly PreparedTool[],
): ToolsSnapshot {
  return new PreparedToolsSnapshot(scope, version, prepared);
}
