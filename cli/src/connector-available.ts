/**
 * The work of `tutti connector available`, shared by its oclif command
 * (commands/connector/available.ts) and the bin's fast path (fast-path.ts): the table of
 * the daemon's answer. Nothing here loads oclif. The output never holds a URL, port,
 * token, header, OAuth data or release path.
 */
import { type ConnectorSummary, sanitizeText } from '@tutti/core/client';

const HEADERS = ['CONNECTOR', 'OFFERS', 'STATUS', 'CLI COMMAND', 'SKILLS'] as const;

function offers(connector: ConnectorSummary): string {
  const parts = connector.interfaces.map((entry) =>
    entry.kind === 'mcp' ? `MCP tools ${entry.toolPrefix}*` : 'CLI',
  );
  if (connector.skills.length > 0) parts.push('Skills');
  return parts.join(', ') || '-';
}

function status(connector: ConnectorSummary): string {
  const statuses = connector.interfaces.map((entry) => `${entry.kind} ${entry.status}`);
  if (statuses.length === 0) return '-';
  return connector.interfaces.every((entry) => entry.status === 'ready')
    ? 'ready'
    : statuses.join(', ');
}

function row(connector: ConnectorSummary): string[] {
  const cli = connector.interfaces.find((entry) => entry.kind === 'cli');
  return [
    `${sanitizeText(connector.name, 40)} (${connector.key})`,
    offers(connector),
    status(connector),
    cli?.kind === 'cli' ? cli.command : '-',
    connector.skills.map((skill) => skill.name).join(', ') || '-',
  ];
}

/** What to do on a home where nothing is installed: the control API installs. */
export const NOTHING_INSTALLED = [
  'No connectors are installed.',
  'Install one through the tutti daemon control API: POST /v1/connectors/install with',
  '{"path": "<absolute release folder>"}; the control URL and token are in',
  '<tutti home>/run/daemon.json (see docs/control-api.md). Then run this again.',
].join('\n');

/**
 * The human table of `connectors`, then per connector a line saying what it is for and,
 * for each interface that is not ready, its status with the fixed advice of that status.
 */
export function renderConnectorTable(connectors: readonly ConnectorSummary[]): string {
  if (connectors.length === 0) return NOTHING_INSTALLED;
  const rows = [[...HEADERS], ...connectors.map(row)];
  const widths = HEADERS.map((_, column) =>
    Math.max(...rows.map((cells) => cells[column]!.length)),
  );
  const lines = rows.map((cells) =>
    cells
      .map((cell, column) => cell.padEnd(widths[column]!))
      .join('  ')
      .trimEnd(),
  );
  lines.push('');
  for (const connector of connectors) {
    const about = sanitizeText(connector.description);
    lines.push(about ? `${connector.key}: ${about}` : `${connector.key}:`);
    if (connector.pending) {
      const serving = connector.running ? `; ${connector.running.version} serves` : '';
      lines.push(
        `  release ${sanitizeText(connector.pending.version, 40)} pending: ${connector.pending.reason}${serving}`,
      );
    }
    for (const entry of connector.interfaces) {
      // The fixed advice, with the connector's key where it says {key}.
      if (entry.advice) {
        lines.push(
          `  ${entry.kind} ${entry.status}: ${entry.advice.replaceAll('{key}', connector.key)}`,
        );
      }
    }
  }
  return lines.join('\n').trimEnd();
}
