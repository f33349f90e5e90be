/**
 * Paginated `tools/list` with caps: a maximum number of pages and of tools, and a cursor
 * seen twice is an error (the SDK's own walk would stop silently or loop).
 */
import type { Client, RequestOptions, Tool } from '@modelcontextprotocol/client';
import type { JsonSchemaObject, UpstreamTool } from '../contracts/index.js';
import { TuttiError } from '../errors/index.js';
import type { ListCaps } from './types.js';

/** Caps used when none are given. */
export const DEFAULT_LIST_CAPS: ListCaps = Object.freeze({ maxPages: 32, maxTools: 1024 });

/** Copies the MCP `Tool` fields the registry knows, leaving out undefined ones. */
export function toUpstreamTool(tool: Tool): UpstreamTool {
  const out: UpstreamTool = {
    name: tool.name,
    inputSchema: tool.inputSchema as unknown as JsonSchemaObject,
  };
  if (tool.title !== undefined) out.title = tool.title;
  if (tool.description !== undefined) out.description = tool.description;
  if (tool.outputSchema !== undefined) {
    out.outputSchema = tool.outputSchema as unknown as JsonSchemaObject;
  }
  if (tool.annotations !== undefined) out.annotations = { ...tool.annotations };
  if (tool._meta !== undefined) out._meta = { ...tool._meta };
  return out;
}

/** Walks every `tools/list` page of `client` within `caps`. */
export async function listAllTools(
  client: Client,
  target: string,
  caps: ListCaps,
  options?: RequestOptions,
): Promise<UpstreamTool[]> {
  const tools: UpstreamTool[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 1; ; page += 1) {
    if (page > caps.maxPages) {
      throw new TuttiError('TUTTI_ERR_UPSTREAM_TOO_MANY_PAGES', {
        target,
        maxPages: caps.maxPages,
      });
    }
    // `client.listTools()` without a cursor walks all pages itself; one page at a time here.
    const result = await client.request(
      { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
      options,
    );
    for (const tool of result.tools) tools.push(toUpstreamTool(tool));
    if (tools.length > caps.maxTools) {
      throw new TuttiError('TUTTI_ERR_UPSTREAM_TOO_MANY_TOOLS', {
        target,
        maxTools: caps.maxTools,
      });
    }
    const next = result.nextCursor;
    if (next === undefined || next === null) return tools;
    if (seen.has(next)) {
      throw new TuttiError('TUTTI_ERR_UPSTREAM_REPEATED_CURSOR', { target, page: page + 1 });
    }
    seen.add(next);
    cursor = next;
  }
}
