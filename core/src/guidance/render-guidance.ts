/**
 * The agent-facing text about the connectors of a session: use the `connector` MCP
 * server's tools by prefix, run the stable `tutti-connector-<key>` commands, and use only
 * the connectors' own Skills through the agent's native skill support; of each connector
 * only the interfaces that are ready, and it says so. Deterministic (sorted,
 * no clock, no randomness) and free of URLs, paths and secrets.
 */
import { CONNECTOR_SERVER_NAME } from '../contracts/index.js';
import type { ConnectorSummary } from '../catalog/connector-summary.js';
import { sanitizeText } from './sanitize-text.js';

const byKey = (a: ConnectorSummary, b: ConnectorSummary) =>
  a.key < b.key ? -1 : a.key > b.key ? 1 : 0;

/** The interfaces of `connector` an agent may use now: only the ready ones. */
function readyInterfaces(connector: ConnectorSummary): ConnectorSummary['interfaces'] {
  return connector.interfaces.filter((entry) => entry.status === 'ready');
}

/** A connector is named when something of it works now (a skills-only one always). */
function usable(connector: ConnectorSummary): boolean {
  return connector.interfaces.length === 0 || readyInterfaces(connector).length > 0;
}

function connectorLines(connector: ConnectorSummary): string[] {
  const name = sanitizeText(connector.name, 80) || connector.key;
  const description = sanitizeText(connector.description);
  const lines = [`- ${name} (\`${connector.key}\`)${description ? `: ${description}` : ''}`];
  for (const entry of readyInterfaces(connector)) {
    if (entry.kind === 'mcp') {
      lines.push(
        `  - MCP tools: the tools of the \`${CONNECTOR_SERVER_NAME}\` MCP server whose names start with \`${entry.toolPrefix}\`.`,
      );
    } else {
      lines.push(`  - CLI: run \`${entry.command}\` in the shell (it is on PATH).`);
    }
  }
  const skills = [...connector.skills].sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const skill of skills) {
    const about = sanitizeText(skill.description, 200);
    lines.push(`  - Skill \`${skill.name}\`${about ? `: ${about}` : ''}`);
  }
  return lines;
}

/**
 * Guidance for an agent session that has `connectors`: their ready interfaces only; empty
 * text when none of them has one.
 * @example runtime.guidance = renderGuidance(catalog.list());
 */
export function renderGuidance(connectors: readonly ConnectorSummary[]): string {
  const named = connectors.filter(usable);
  if (named.length === 0) return '';
  const lines = [
    'Connectors available in this session:',
    '',
    ...[...named].sort(byKey).flatMap(connectorLines),
    '',
    `Only the interfaces that are ready now are listed: use no other. A connector still starting, or waiting for a credential, is left out until it is ready; its tools then appear on the \`${CONNECTOR_SERVER_NAME}\` server.`,
    `Use a connector only through these native interfaces: call its tools on the \`${CONNECTOR_SERVER_NAME}\` MCP server as you call any MCP tool, and run its CLI command in the shell.`,
    'Use only the Skills listed here for connector work; your own skill support finds and reads them.',
    `The \`${CONNECTOR_SERVER_NAME}\` server's current tool list is the truth: if a tool or command is gone, that connector is no longer available.`,
  ];
  return `${lines.join('\n')}\n`;
}
