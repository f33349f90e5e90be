/**
 * The runtime's entries as the outside sees them: `ConnectorStatus` for the control API
 * (`GET /v1/connectors`, `/debug/registry`) and the spec 9.2 `ConnectorSummary` of every
 * installed connector for `connector available` and the agents' guidance, each interface
 * with its run condition and that condition's fixed advice.
 */
import { CONNECTOR_SERVER_NAME } from '../contracts/index.js';
import { lastLines, createSecretRedactor } from '../process/index.js';
import { toolPrefix } from '../registry/index.js';
import {
  adviceOf,
  type CliStatus,
  type ConnectorSummary,
  connectorSummarySchema,
  type InterfaceStatus,
  type ConnectorCatalog,
  PENDING_REASONS,
  withAdvice,
} from '../catalog/index.js';
import type { InstalledConnector } from '../store/index.js';
import type { RuntimeEntry } from './runtime-entry.js';
import { waitsForSignIn } from './sign-in-target.js';
import type { ConnectorStatus } from './types.js';

/** Run condition of the entry's MCP interface. */
function mcpStatus(entry: RuntimeEntry): InterfaceStatus {
  switch (entry.state) {
    case 'ready':
      return 'ready';
    case 'needs-auth':
      return 'needs-auth';
    case 'restarting':
      return 'restarting';
    case 'starting':
      return 'starting';
    default:
      return entry.lastErrorCode === 'TUTTI_ERR_UPSTREAM_UNAUTHORIZED'
        ? 'credential-rejected'
        : 'failed';
  }
}

/** Run condition of the entry's CLI interface: its shim, whatever its MCP server does. */
function cliStatus(entry: RuntimeEntry, shim: 'published' | 'failed' | undefined): CliStatus {
  if (entry.waiting && entry.state === 'needs-auth') return 'needs-auth';
  if (entry.waiting && entry.state === 'failed') return 'failed';
  if (shim === 'published') return 'ready';
  return shim === 'failed' ? 'failed' : 'starting';
}

/**
 * The skill folder `entry` hands agent sessions: a connector's skills go with any interface
 * of it that works (a CLI whose MCP server failed included), never with one that has none
 * working. Decided from the entry alone (no status, no stderr), once per session start.
 */
export function sessionSkillRoot(
  entry: RuntimeEntry,
  shim: 'published' | 'failed' | undefined,
): string | undefined {
  if (entry.skillRoot === undefined) return undefined;
  const cliWorks = entry.connector.paths.cli !== undefined && cliStatus(entry, shim) === 'ready';
  return entry.state === 'ready' || cliWorks ? entry.skillRoot : undefined;
}

/** Most stderr lines a status shows, and the longest line. */
const STDERR_LINES = 20;
const STDERR_LINE_LENGTH = 500;

/** The entry's stderr tail as lines, secrets masked, bounded; undefined when empty. */
function stderrLines(entry: RuntimeEntry): string[] | undefined {
  const text = entry.stderr?.() ?? '';
  if (text.trim() === '') return undefined;
  const masked = entry.redactor ? entry.redactor.redact(text) : createSecretRedactor().redact(text);
  return lastLines(masked, STDERR_LINES, STDERR_LINE_LENGTH);
}

/**
 * The status of `entry`; `shim` says how its CLI shim stands. `withStderr` adds its
 * stderr tail (for the control API only).
 */
export function statusOf(
  entry: RuntimeEntry,
  shim: 'published' | 'failed' | undefined,
  withStderr = false,
  installed: InstalledConnector | undefined = entry.connector,
): ConnectorStatus {
  const { paths } = entry.connector;
  const mcp = paths.mcp ? mcpStatus(entry) : undefined;
  const cli = paths.cli ? cliStatus(entry, shim) : undefined;
  const advice = adviceOf(mcp ?? cli ?? 'ready');
  const stderr = withStderr ? stderrLines(entry) : undefined;
  return {
    key: entry.key,
    state: entry.state,
    revision: entry.revision,
    ...(entry.generation !== undefined && { generation: entry.generation }),
    ...(entry.connection?.pid !== undefined && { pid: entry.connection.pid }),
    toolCount: entry.toolCount,
    failures: entry.failures,
    restarts: entry.restarts,
    ...runningOf(entry, installed),
    ...(entry.parked && { parked: true as const }),
    ...(entry.lastError !== undefined && { lastError: entry.lastError }),
    ...(advice !== undefined && { advice }),
    ...(entry.state === 'needs-auth' &&
      waitsForSignIn(entry.connector, entry.lastErrorCode) && { signIn: true as const }),
    ...(stderr && { stderr }),
    ...(entry.skillRoot !== undefined && { skillRoot: entry.skillRoot }),
    ...(mcp && { mcp }),
    ...(cli && { cli }),
  };
}

/**
 * The release serving (`running`) and the installed one while it has not run (`pending`,
 * with why): an upgrade that failed beside the one serving, the last good release serving
 * after a restart, or a start under way.
 */
function runningOf(
  entry: RuntimeEntry,
  installed: InstalledConnector | undefined,
): Pick<ConnectorStatus, 'running' | 'pending'> {
  const serving = entry.state === 'ready' || entry.state === 'restarting';
  const running = serving
    ? { version: entry.connector.manifest.version, revision: entry.revision }
    : undefined;
  let pending: ConnectorStatus['pending'];
  if (entry.pending && installed?.digest === entry.pending.release.digest) {
    pending = {
      version: entry.pending.release.manifest.version,
      revision: installed.revision,
      reason: entry.pending.reason,
    };
  } else if (installed && (!serving || installed.digest !== entry.connector.digest)) {
    const reason =
      entry.state === 'failed' ? (entry.lastError ?? 'it did not start') : 'it is starting';
    if (entry.state !== 'needs-auth') {
      pending = { version: installed.manifest.version, revision: installed.revision, reason };
    }
  }
  return { ...(running && { running }), ...(pending && { pending }) };
}

/** The summary of a connector no route describes yet: its installed release's metadata. */
function releaseSummary(entry: RuntimeEntry): ConnectorSummary | undefined {
  const { key, connector } = entry;
  const interfaces: ConnectorSummary['interfaces'] = [];
  if (connector.paths.mcp) {
    interfaces.push({
      kind: 'mcp',
      serverName: CONNECTOR_SERVER_NAME,
      toolPrefix: toolPrefix(key),
      status: 'ready',
    });
  }
  if (connector.paths.cli) {
    interfaces.push({ kind: 'cli', command: `tutti-connector-${key}`, status: 'ready' });
  }
  const parsed = connectorSummarySchema.safeParse({
    key,
    name: connector.manifest.name,
    description: connector.manifest.description,
    skills: entry.skills,
    interfaces,
  });
  return parsed.success ? parsed.data : undefined;
}

/**
 * The summary of every entry, sorted by key: the committed route metadata where a route
 * describes the connector (the release serving), its installed release's otherwise, each
 * interface with the live condition of `status`.
 */
export function summariesOf(
  entries: readonly { entry: RuntimeEntry; status: ConnectorStatus }[],
  routes: ConnectorCatalog,
): ConnectorSummary[] {
  const out: ConnectorSummary[] = [];
  for (const { entry, status } of entries) {
    const base = routes.get(entry.key) ?? releaseSummary(entry);
    if (!base) continue;
    out.push({
      ...base,
      ...(status.running && { running: { ...status.running } }),
      ...(status.pending && {
        pending: {
          version: status.pending.version,
          revision: status.pending.revision,
          reason:
            status.state === 'starting' && !status.lastError
              ? PENDING_REASONS.starting
              : PENDING_REASONS.failed,
        },
      }),
      skills: base.skills.map((skill) => ({ ...skill })),
      interfaces: base.interfaces.map(({ advice: _advice, ...face }) =>
        face.kind === 'mcp'
          ? { ...face, ...withAdvice(status.mcp ?? face.status) }
          : { ...face, ...withAdvice(status.cli ?? face.status) },
      ),
    });
  }
  return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
}
