/**
 * What the connector runtime keeps per installed connector: the release it runs or waits
 * to run, its live upstream, and what went wrong last; and the entries of connectors
 * that run nothing. Internal to the runtime.
 */
import type { TuttiError } from '../errors/index.js';
import type { SecretRedactor } from '../process/index.js';
import type { SkillSummary } from '../catalog/index.js';
import type { DiscoveredSkills } from '../skills/index.js';
import type { InstalledConnector } from '../store/index.js';
import type { UpstreamConnection } from '../upstream/index.js';
import type { TrackedClient } from './tracked-client.js';
import type { ConnectorState } from './types.js';

/** One connector in the runtime. */
export interface RuntimeEntry {
  readonly key: string;
  connector: InstalledConnector;
  state: ConnectorState;
  /**
   * True while it waits for a credential (state `needs-auth`) or cannot read the one it
   * has (state `failed`): nothing runs, and a sync looks at its credential again.
   */
  waiting: boolean;
  /** Latest store revision this entry reflects (started or attempted). */
  attempted: number;
  /** Store revision the serving upstream came from. */
  revision: number;
  generation?: number;
  connection?: UpstreamConnection;
  client?: TrackedClient;
  skills: SkillSummary[];
  skillRoot?: string;
  /** Tools the route serving now holds (0 while none serves). */
  toolCount: number;
  /** The upstream's tool list last committed, as JSON (to skip a list_changed that changed nothing). */
  listed?: string;
  /** Failures in a row, a crash after a short run included: the backoff's count. */
  failures: number;
  /**
   * Starts in a row that never got ready: the parking count. A crash after ready is not
   * one, since a call can cause it (an agent must not park a connector for everyone).
   */
  failedStarts: number;
  restarts: number;
  lastError?: string;
  /** Code of the error behind `lastError`, when it was a tutti error. */
  lastErrorCode?: string;
  /** Reads the stderr tail of its stdio server: the running one, or the one that failed. */
  stderr?: () => string;
  /** Knows the connector's credential and secret-looking env values, to mask them. */
  redactor?: SecretRedactor;
  startedAt?: number;
  timer?: NodeJS.Timeout;
  closing: boolean;
  /**
   * The installed release while it has not run, beside this entry's release serving (an
   * upgrade that failed, or the last good release serving after a restart): why not yet.
   */
  pending?: { readonly release: InstalledConnector; reason: string };
  /** It failed too often in a row: no retry until a change or `retry`. */
  parked?: boolean;
}

/** A stand-in for an installed connector its first sync has not reached yet: `starting`. */
export function placeholderEntry(connector: InstalledConnector): RuntimeEntry {
  return {
    key: connector.key,
    connector,
    state: 'starting',
    waiting: true,
    attempted: 0,
    revision: connector.revision,
    skills: [],
    toolCount: 0,
    failures: 0,
    failedStarts: 0,
    restarts: 0,
    closing: false,
  };
}

/**
 * A start of `connector` as generation `generation`: `starting`, with the counts of failures
 * and restarts of `previous` (the entry it follows), its output masked by `redactor`.
 */
export function startingEntry(
  connector: InstalledConnector,
  generation: number,
  previous: RuntimeEntry | undefined,
  redactor: SecretRedactor,
): RuntimeEntry {
  return {
    key: connector.key,
    connector,
    state: 'starting',
    waiting: false,
    attempted: generation,
    revision: generation,
    skills: [],
    toolCount: 0,
    failures: previous?.failures ?? 0,
    failedStarts: previous?.failedStarts ?? 0,
    restarts: previous?.restarts ?? 0,
    closing: false,
    redactor,
  };
}

/**
 * A connector held with nothing running: `needs-auth` (no credential) or `failed` (the
 * credential cannot be read: `problem`), with its release's skills when known.
 */
export function heldEntry(
  connector: InstalledConnector,
  state: 'needs-auth' | 'failed',
  found: DiscoveredSkills | undefined,
  restarts: number,
  problem: TuttiError | undefined,
): RuntimeEntry {
  const skills = found?.skills ?? [];
  return {
    key: connector.key,
    connector,
    state,
    waiting: true,
    attempted: connector.revision,
    revision: connector.revision,
    skills,
    ...(found?.root && skills.length > 0 && { skillRoot: found.root }),
    toolCount: 0,
    failures: 0,
    failedStarts: 0,
    restarts,
    closing: false,
    ...(problem && { lastError: problem.message, lastErrorCode: problem.code }),
  };
}
