/** Realistic synthetic tool sets for the benches: `count` tools, 50 per connector. */
import type { UpstreamTool } from '@tutti/core/internal';

/** One connector's tools. */
export interface ToolSet {
  readonly key: string;
  readonly tools: UpstreamTool[];
}

/** One upstream tool with a few typed properties, a required list and annotations. */
function upstreamTool(connector: string, index: number): UpstreamTool {
  return {
    name: `operation_${index}`,
    title: `Operation ${index} of ${connector}`,
    description: `Runs operation ${index} against ${connector}. Returns a JSON document describing the result, with pagination when the result is long.`,
    inputSchema: {
      type: 'object',
      properties: {
        owner: { type: 'string', description: 'Owner of the resource' },
        repo: { type: 'string', description: 'Name of the resource' },
        page: { type: 'integer', minimum: 1, default: 1 },
        labels: { type: 'array', items: { type: 'string' }, maxItems: 20 },
        state: { enum: ['open', 'closed', 'all'] },
      },
      required: ['owner', 'repo'],
      additionalProperties: false,
    },
    annotations: { readOnlyHint: index % 2 === 0 },
  };
}

/** `count` tools as connector tool sets `{ key, tools }` of 50 tools each. */
export function manyTools(count: number, perConnector = 50): ToolSet[] {
  const sets: ToolSet[] = [];
  for (let c = 0; c * perConnector < count; c += 1) {
    const key = `conn${String(c).padStart(3, '0')}`;
    const size = Math.min(perConnector, count - c * perConnector);
    sets.push({ key, tools: Array.from({ length: size }, (_, t) => upstreamTool(key, t)) });
  }
  return sets;
}
