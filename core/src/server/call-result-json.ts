/**
 * A `tools/call` result as MCP 2026-07-28 requires it: the upstream's members unchanged,
 * then `resultType: "complete"` and the server info in `_meta` (merged into the
 * upstream's own `_meta` when it has one).
 */
import { SERVER_INFO_META_KEY } from '@modelcontextprotocol/server';
import type { UpstreamCallResult } from '../contracts/index.js';
import { SERVER_INFO } from './constants.js';
import { isPlainObject } from '../util/objects.js';

/** The `_meta` member carrying the server info, as JSON text. */
export const CALL_RESULT_SERVER_INFO = `"_meta":${JSON.stringify({ [SERVER_INFO_META_KEY]: SERVER_INFO })}`;

/** `callResultJson` by building the object, for every result. */
function stampedJson(result: UpstreamCallResult): string {
  const meta = result._meta;
  const stamped: Record<string, unknown> = { ...result, resultType: 'complete' };
  if (meta === undefined || isPlainObject(meta)) {
    stamped._meta = { [SERVER_INFO_META_KEY]: SERVER_INFO, ...meta };
  }
  return JSON.stringify(stamped);
}

/** The JSON text of `result` stamped for 2026-07-28. */
export function callResultJson(result: UpstreamCallResult): string {
  if (!('_meta' in result) && !('resultType' in result)) {
    // The common case, as text: the same bytes as stampedJson, one object copy fewer.
    const json = JSON.stringify(result);
    if (json.length > 2) {
      return `${json.slice(0, -1)},"resultType":"complete",${CALL_RESULT_SERVER_INFO}}`;
    }
  }
  return stampedJson(result);
}
