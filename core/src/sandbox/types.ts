/**
 * Public shapes of connector server isolation (docs/sandbox.md): the daemon's setting,
 * the process a launch starts, the policy one server runs under, the platform part that
 * turns a policy into a wrapped process, and what the control API shows of it.
 */

/** `tuttid --sandbox`: `auto` isolates when it can, `required` never runs what it cannot isolate, `off` never isolates. */
export type SandboxMode = 'auto' | 'required' | 'off';

/** The sandbox modes, for flag parsing and docs. */
export const SANDBOX_MODES: readonly SandboxMode[] = Object.freeze(['auto', 'required', 'off']);

/** A process to start: what the supervisor spawns (`env` is its whole environment). */
export interface ProcessLaunch {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  /** Files it gets open for reading as descriptors 3, 4, ... (bwrap's seccomp program). */
  readonly files?: readonly string[];
}

/** One folder or file made visible inside the sandbox. */
export interface SandboxBind {
  readonly kind: 'bind';
  /** Where it is outside. */
  readonly source: string;
  /** Where the server sees it (the same path, except for a folder bound in another's place). */
  readonly target: string;
  readonly writable: boolean;
  /** A missing source is skipped instead of failing the start. */
  readonly optional?: boolean;
}

/** A protected path inside a bind, hidden: an empty folder or file in its place. */
export interface SandboxHide {
  readonly kind: 'hide';
  readonly path: string;
  readonly folder: boolean;
}

/** Everything one isolated server may use, in absolute paths. */
export interface SandboxPolicy {
  /** What it sees, in mount order: a later mount lies over an earlier one. */
  readonly mounts: readonly (SandboxBind | SandboxHide)[];
  readonly network: 'none' | 'host';
  /** Most data memory of each process, in bytes, and most processes (and threads). */
  readonly limits: { readonly memoryBytes: number; readonly processes: number };
}

/** What a platform's probe found. */
export type SandboxProbe =
  | {
      readonly ok: true;
      /** A hardening that could not be had here (the seccomp filter), in a sentence. */
      readonly warning?: string;
    }
  | {
      /** Why servers cannot be isolated here, in a sentence (no secret, no path of the user's). */
      readonly ok: false;
      readonly reason: string;
    };

/**
 * The platform part of isolation: Linux's bubblewrap today; macOS (`sandbox-exec`) and
 * Windows plug in here (docs/sandbox.md).
 */
export interface SandboxPlatform {
  /** Short name shown in status: `bubblewrap`. */
  readonly name: string;
  /** Checks once that an isolated process starts here. */
  probe(): Promise<SandboxProbe>;
  /** The process that runs `launch` under `policy` (its environment is `launch.env` alone). */
  wrap(launch: ProcessLaunch, policy: SandboxPolicy): ProcessLaunch;
}

/**
 * How one connector's stdio server runs, as the control API, `tuttid status` and the
 * dashboard show it. `isolation`: `isolated` under the platform's sandbox;
 * `not-isolated` (`auto` where the sandbox does not work); `off` (`--sandbox off`);
 * `refused` (`required` where it does not work: the server is not started).
 */
export interface ConnectorSandboxView {
  readonly isolation: 'isolated' | 'not-isolated' | 'off' | 'refused';
  /** The platform that isolates it, when one does. */
  readonly platform?: string;
  /** `declared` when its manifest has a `sandbox` block, else `default`. */
  readonly profile: 'declared' | 'default';
  readonly network: 'none' | 'host';
  /**
   * The home paths it asked for (`~/...`), as declared, and those its last isolated start
   * did not give (a symlink into a protected folder, the daemon's home), with why.
   */
  readonly home: {
    readonly read: readonly string[];
    readonly write: readonly string[];
    readonly refused?: readonly { readonly path: string; readonly reason: string }[];
  };
  /** Names of the environment variables it gets (never their values). */
  readonly env: readonly string[];
  readonly limits: { readonly memoryMiB: number; readonly processes: number };
}
