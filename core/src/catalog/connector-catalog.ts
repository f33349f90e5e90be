/**
 * The connector catalog: discover metadata of every serving connector, generation-fenced
 * exactly like the MCP registry, listed as `ConnectorSummary` objects (docs/control-api.md)
 * sorted by key. It holds no URL, port, token or path: its inputs cannot carry one (strict schemas).
 */
import { TuttiError } from '../errors/index.js';
import { deepFreeze } from '../util/objects.js';
import {
  assertConnectorKey,
  assertGeneration,
  createGenerationFences,
  toolPrefix,
} from '../registry/index.js';
import { CONNECTOR_SERVER_NAME } from '../contracts/index.js';
import {
  type ConnectorMetadata,
  type ConnectorSummary,
  connectorMetadataSchema,
  connectorSummarySchema,
} from './connector-summary.js';
import { adviceOf, type InterfaceStatus } from './interface-status.js';

/** The generation-fenced table of connector discover metadata. */
export interface ConnectorCatalog {
  /**
   * Replaces `connectorKey`'s metadata at `generation` and returns its summary. Rejects an
   * invalid key or metadata and a generation at or below the fence, changing nothing.
   */
  commit(connectorKey: string, generation: number, metadata: ConnectorMetadata): ConnectorSummary;
  /** Fences `connectorKey` at `generation`; removes its entry if not newer. True if removed. */
  remove(connectorKey: string, generation: number): boolean;
  /** The summary of `connectorKey`, or undefined. */
  get(connectorKey: string): ConnectorSummary | undefined;
  /** Every summary, sorted by key, frozen. */
  list(): readonly ConnectorSummary[];
  /** The generation currently listed for `connectorKey`, or undefined. */
  generationOf(connectorKey: string): number | undefined;
}

/** `status` and, unless it is `ready`, its fixed advice. */
export function withAdvice<S extends InterfaceStatus>(status: S): { status: S; advice?: string } {
  const advice = adviceOf(status);
  return advice === undefined ? { status } : { status, advice };
}

function summarize(key: string, metadata: ConnectorMetadata): ConnectorSummary {
  const parsed = connectorMetadataSchema.safeParse(metadata);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.length ? `${issue.path.join('.')}: ` : '';
    throw new TuttiError('TUTTI_ERR_ROUTES_INVALID_METADATA', {
      key,
      reason: `${where}${issue?.message ?? 'invalid'}`,
    });
  }
  const { name, description, mcp, cli, skills } = parsed.data;
  const sortedSkills = [...skills].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const duplicate = sortedSkills.find(
    (skill, index) => sortedSkills[index + 1]?.name === skill.name,
  );
  if (duplicate !== undefined) {
    throw new TuttiError('TUTTI_ERR_ROUTES_INVALID_METADATA', {
      key,
      reason: `skill "${duplicate.name}" is listed more than once`,
    });
  }
  const interfaces: ConnectorSummary['interfaces'] = [];
  if (mcp !== undefined) {
    interfaces.push({
      kind: 'mcp',
      serverName: CONNECTOR_SERVER_NAME,
      toolPrefix: toolPrefix(key),
      ...withAdvice(mcp.status),
    });
  }
  if (cli !== undefined) {
    interfaces.push({ kind: 'cli', command: `tutti-connector-${key}`, ...withAdvice(cli.status) });
  }
  const summary = { key, name, description, skills: sortedSkills, interfaces };
  return deepFreeze(connectorSummarySchema.parse(summary));
}

/**
 * Creates an empty connector catalog.
 * @example
 * const catalog = createConnectorCatalog();
 * catalog.commit('github', 3, { name: 'GitHub', description: '...', mcp: { status: 'ready' } });
 */
export function createConnectorCatalog(): ConnectorCatalog {
  const fences = createGenerationFences();
  const entries = new Map<string, { generation: number; summary: ConnectorSummary }>();
  let listed: readonly ConnectorSummary[] | undefined;

  return Object.freeze({
    commit(connectorKey: string, generation: number, metadata: ConnectorMetadata) {
      assertConnectorKey(connectorKey);
      assertGeneration(connectorKey, generation);
      fences.assertNewer(connectorKey, generation);
      const summary = summarize(connectorKey, metadata);
      fences.raise(connectorKey, generation);
      entries.set(connectorKey, { generation, summary });
      listed = undefined;
      return summary;
    },

    remove(connectorKey: string, generation: number) {
      assertConnectorKey(connectorKey);
      assertGeneration(connectorKey, generation);
      fences.raise(connectorKey, generation);
      const entry = entries.get(connectorKey);
      if (entry === undefined || entry.generation > generation) return false;
      entries.delete(connectorKey);
      listed = undefined;
      return true;
    },

    get: (connectorKey: string) => entries.get(connectorKey)?.summary,

    list() {
      listed ??= Object.freeze([...entries.keys()].sort().map((key) => entries.get(key)!.summary));
      return listed;
    },

    generationOf: (connectorKey: string) => entries.get(connectorKey)?.generation,
  });
}
