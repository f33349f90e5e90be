/**
 * The `connector available` list (docs/control-api.md): the committed catalog entry of every
 * connector, with each interface's status taken from the runtime at the time of asking
 * (a crashed upstream's MCP interface reads `starting` until it is back).
 */
import type { ConnectorSummary, ConnectorCatalog } from '../catalog/index.js';
import type { ConnectorStatus } from '../runtime/index.js';

/** Summaries sorted by key, statuses overlaid from `statuses`. */
export function availableConnectors(
  catalog: ConnectorCatalog,
  statuses: readonly ConnectorStatus[],
): ConnectorSummary[] {
  const byKey = new Map(statuses.map((status) => [status.key, status]));
  return catalog.list().map((summary) => {
    const status = byKey.get(summary.key);
    return {
      ...summary,
      skills: summary.skills.map((skill) => ({ ...skill })),
      interfaces: summary.interfaces.map((face) => {
        const live = face.kind === 'mcp' ? status?.mcp : status?.cli;
        return { ...face, status: live ?? face.status };
      }),
    };
  });
}
