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

/** The human table of `connectors`, then one line per connector saying what it is for. */
export function renderConnectorTable(connectors: readonly ConnectorSummary[]): string {
  if (connectors.length === 0) {
    return 'No connectors are available. Install a connector and authorize it, then run this again.';
  }
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
    if (about) lines.push(`${connector.key}: ${about}`);
  }
  return lines.join('\n').trimEnd();
}
