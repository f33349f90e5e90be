/**
 * Installed agents: what `<home>/agents/<id>/` holds after `POST /v1/agents/install`, and
 * the feed a plugin reads it from. Core installs and verifies the files (it never imports a
 * provider); the agent-descriptors plugin turns each installed agent into an ACP provider.
 */

/** Where an installed agent came from. */
export type InstalledAgentSource = 'registry' | 'extension';

/** How an installed agent runs: from its registry entry, resolved after the install. */
export interface InstalledAgentRun {
  /** Absolute path of the program (a package bin, an extracted binary, a uv tool). */
  readonly command: string;
  /** The entry's `args`. */
  readonly args: readonly string[];
  /** The entry's `env`. */
  readonly env: Readonly<Record<string, string>>;
}

/** A verified signed extension of an installed agent. */
export interface InstalledExtension {
  /** The pinned version the signature covered. */
  readonly version: string;
  /** The folder the package was extracted into (data only). */
  readonly dir: string;
  /** Absolute path of its descriptor (inside `dir`). */
  readonly descriptor: string;
  /** The files the package declared, relative to `dir`. */
  readonly files: readonly string[];
}

/** One installed agent, as its `<home>/agents/<id>/installed.json` records it. */
export interface InstalledAgent {
  /** The registry id, or the extension's agent key: the provider name. */
  readonly id: string;
  /** Display name. */
  readonly name: string;
  readonly description?: string;
  /** The runtime's version (the entry's), else the extension's. */
  readonly version: string;
  readonly source: InstalledAgentSource;
  /** Absent for an extension whose descriptor names its own command. */
  readonly run?: InstalledAgentRun;
  readonly extension?: InstalledExtension;
  /** `<home>/agents/<id>`. */
  readonly dir: string;
  /** ISO time of the install. */
  readonly installedAt: string;
}

/** An install or a removal, in the order they happened. */
export type InstalledAgentsChange =
  | { readonly kind: 'installed'; readonly agent: InstalledAgent }
  | { readonly kind: 'removed'; readonly id: string };

/** What a plugin reads installed agents from. */
export interface InstalledAgentsFeed {
  /** Every installed agent, by id. */
  list(): Promise<readonly InstalledAgent[]>;
  /**
   * Runs `listener` after each install and each removal. An install waits for every
   * listener: one that throws (a descriptor that cannot be used) undoes the install, and the
   * install request is refused with its error.
   */
  subscribe(listener: (change: InstalledAgentsChange) => void | Promise<void>): () => void;
}
