/**
 * What the daemon's agent installer offers the control API and the dashboard: install from
 * a registry entry, a registry id or a signed extension source; list; remove. The files live
 * in `<home>/agents/<id>/`; plugins read them through the {@link InstalledAgentsFeed}.
 */
import type {
  InstalledAgent,
  InstalledAgentSource,
  InstalledAgentsFeed,
} from '../contracts/installed-agents.js';
import type { TuttiError } from '../errors/index.js';

/** The body of `POST /v1/agents/install`, checked by the installer. */
export type AgentInstallRequest = (
  | { readonly entry: unknown }
  | { readonly id: string }
  | { readonly extension: unknown }
) & {
  /** Lets npm run the package's install scripts and uv build from source (off unless allowed). */
  readonly allowInstallScripts?: boolean;
};

/** One row of `GET /v1/agents`. */
export interface AgentListing {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  readonly version: string;
  readonly source: InstalledAgentSource;
  /** The verified extension: its pinned version, its agent key and the files it declared. */
  readonly extension?: {
    readonly version: string;
    readonly agent: string;
    readonly files: readonly string[];
  };
  /** Bytes on disk under `<home>/agents/<id>/`. */
  readonly sizeBytes: number;
  readonly installedAt: string;
}

/** The daemon's agent installer. */
export interface AgentInstaller {
  /** What plugins read installed agents from. */
  readonly feed: InstalledAgentsFeed;
  /**
   * Installs (or replaces) one agent: downloads, verifies, extracts or installs its files,
   * then tells the feed's listeners (a listener that throws undoes it). Refusals are
   * TuttiErrors and leave nothing behind; an earlier version stays until the new one is in.
   */
  install(request: AgentInstallRequest): Promise<InstalledAgent>;
  /** Every installed agent with its size on disk. */
  list(): Promise<AgentListing[]>;
  /** Removes one agent's files and tells the listeners; TUTTI_ERR_AGENT_NOT_INSTALLED if none. */
  remove(id: string): Promise<void>;
}

/** How the daemon makes its installer. */
export interface AgentInstallerOptions {
  /** The tutti home; agents go to `<home>/agents/<id>/`. */
  readonly home: string;
  /** File path or URL of a registry index (`registry.json`: `{agents: [...]}`) for `{id}`. */
  readonly registryIndex?: string;
  /** The daemon's log (never given a secret). */
  readonly logger?: {
    info(fields: Record<string, unknown>, message: string): void;
    warn(fields: Record<string, unknown>, message: string): void;
  };
  /** Environment for npm and uv (the daemon's; npm_config_registry etc. reach npm). */
  readonly env?: NodeJS.ProcessEnv;
  /** The platform key of this machine (`linux-x86_64`); tests may name another. */
  readonly platform?: string;
  /**
   * Why agent `id` may not change now (TUTTI_ERR_AGENT_IN_USE while its sessions run), or
   * undefined. Asked inside the agent's exclusive section right before an install of an
   * installed agent is committed and before a removal: a refusal leaves the installed files
   * as they were.
   */
  readonly inUse?: (id: string) => TuttiError | undefined;
}
