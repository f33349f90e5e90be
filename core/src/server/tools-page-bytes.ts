/**
 * `tools/list` pages as UTF-8 bytes, encoded once per snapshot: the whole list is the
 * snapshot's own `toolsJsonBytes`, other pages are encoded on first use and kept per
 * server with the snapshot (a WeakMap, so they go when it goes). A multi-megabyte list is then copied per
 * request, not concatenated and encoded again.
 */
import type { ToolsSnapshot } from '../registry/types.js';

/** One page of the tools array as bytes, with the cursor of the next page. */
export interface ToolsPageBytes {
  readonly bytes: Buffer;
  readonly nextCursor?: string;
}

/** The page at `cursor` of `snapshot` as bytes (see {@link createToolsPageBytes}). */
export type ToolsPageBytesOf = (
  snapshot: ToolsSnapshot,
  cursor: string | undefined,
  pageSize: number,
) => ToolsPageBytes;

/**
 * The page encoder of one server, with its own cache. It throws as `snapshot.page` does
 * for a cursor the snapshot did not issue (only issued cursors are ever cached).
 */
export function createToolsPageBytes(): ToolsPageBytesOf {
  const pagesBySnapshot = new WeakMap<ToolsSnapshot, Map<string, ToolsPageBytes>>();
  return (snapshot, cursor, pageSize) => {
    let pages = pagesBySnapshot.get(snapshot);
    const key = `${pageSize}:${cursor ?? ''}`;
    const cached = pages?.get(key);
    if (cached) return cached;
    const page = snapshot.page(cursor, pageSize);
    const bytes =
      page.toolsJson === snapshot.toolsJson
        ? snapshot.toolsJsonBytes
        : Buffer.from(page.toolsJson, 'utf8');
    const entry: ToolsPageBytes =
      page.nextCursor === undefined ? { bytes } : { bytes, nextCursor: page.nextCursor };
    if (!pages) {
      pages = new Map();
      pagesBySnapshot.set(snapshot, pages);
    }
    pages.set(key, entry);
    return entry;
  };
}
