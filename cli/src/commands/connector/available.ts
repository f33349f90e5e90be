/**
 * `tutti connector available`: the one public connector command. It asks the running
 * daemon which connectors every agent can use and how (MCP tools of the `connector` server
 * by prefix, the stable CLI command, the connector's skills). Its output never holds a URL,
 * port, token, header, OAuth data or release path.
 */
import { Command, Flags } from '@oclif/core';
import { type ConnectorSummary, isTuttiError, resolveHome, sanitizeText } from '@tutti/core/client';
import { type AvailableConnectors, fetchAvailableConnectors } from '../../daemon-client.js';

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

/** `tutti connector available [--json] [--home <dir>]`. */
export default class ConnectorAvailable extends Command {
  static override summary = 'List the connectors agents can use, and how to use each.';
  static override description =
    'Asks the running tutti daemon which connectors are ready: the MCP tools each one offers on the "connector" MCP server (by tool-name prefix), the command to run its CLI, and its skills.';
  static override examples = [
    '<%= config.bin %> connector available',
    '<%= config.bin %> connector available --json',
  ];
  static override enableJsonFlag = true;
  static override flags = {
    home: Flags.string({
      description: 'tutti home folder of the daemon to ask (default: $TUTTI_HOME, else ~/.tutti)',
    }),
  };

  override async run(): Promise<AvailableConnectors> {
    const { flags } = await this.parse(ConnectorAvailable);
    const home = resolveHome({ flag: flags.home });
    let available: AvailableConnectors;
    try {
      available = await fetchAvailableConnectors(home);
    } catch (error) {
      if (isTuttiError(error)) this.error(error.message, { code: error.code, exit: 1 });
      throw error;
    }
    this.log(renderConnectorTable(available.connectors));
    return available;
  }

  /** JSON errors carry only a code and the message, never a stack or a cause. */
  protected override toErrorJson(error: unknown): { error: { code?: string; message: string } } {
    const { code, message } = error as { code?: string; message?: string };
    return { error: { code, message: message ?? 'The command failed.' } };
  }
}
