/**
 * What the connector runtime keeps per installed connector: the release it runs or waits
 * to run, its live upstream, and what went wrong last. Internal to the runtime.
 */
import type { SecretRedactor } from '../process/index.js';
import type { SkillSummary } from '../routes/index.js';
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
  failures: number;
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
}
