/**
 * Thin descriptors of ACP agents: how to start each one. The engine is the same for all;
 * a descriptor never changes protocol behaviour, only the command line and environment.
 */
import type { ChannelLimits } from '@tutti/core';

/** How to start one kind of ACP agent. */
export interface AcpAgentDescriptor {
  /** Provider name callers pass, e.g. `opencode`. */
  readonly name: string;
  /** Default command; the caller's `launch.command` wins. Absent: the caller must give one. */
  readonly command?: string;
  readonly args?: readonly string[];
  /** Environment added for this agent (below the caller's `launch.env`). */
  readonly env?: Readonly<Record<string, string>>;
  /** The agent's MCP client re-lists on `notifications/tools/list_changed`. */
  readonly listChanged?: boolean;
  /** How long `initialize` may take before the session degrades to plain (ms). */
  readonly initializeTimeoutMs?: number;
  /** How long other requests may take (ms). */
  readonly requestTimeoutMs?: number;
  /** Bounds of the agent's stdio channel (line length, noise, messages per second). */
  readonly limits?: Partial<ChannelLimits>;
  /** A session-scoped home the agent is pointed at (its own config folder variable). */
  readonly home?: AgentHome;
  /** How connector skills reach the agent's own skill scanner. */
  readonly skills?: SkillsDelivery;
  /** How the guidance reaches the agent's own instructions. */
  readonly guidance?: GuidanceDelivery;
  /**
   * Settings that change what the agent trusts, never set silently: a session turns one on
   * by naming it in its request (`settings`).
   */
  readonly settings?: Readonly<Record<string, AgentSetting>>;
}

/** A session-scoped home; see `agent-home.ts`. */
export interface AgentHome {
  /** The variable that points the agent at its home, e.g. `OPENCODE_CONFIG_DIR`. */
  readonly env: string;
  /** `adds`: read beside the user's folder; `replaces`: read instead of it. */
  readonly mode: 'adds' | 'replaces';
  /** Where the user's own folder is, first match wins: `$CODEX_HOME`, `~/.codex`. */
  readonly user: readonly string[];
  /** Entries of the user's folder linked into the home (`replaces` links every entry). */
  readonly link: readonly string[];
  /** Entries the agent writes and needs later (its sessions): kept in the user's folder, linked. */
  readonly keep: readonly string[];
  /** Files written into the home (a name ending in `/` is a folder). */
  readonly seed: Readonly<Record<string, string>>;
}

/** How connector skills reach the agent. */
export type SkillsDelivery =
  /** Linked into `<home>/<dir>`, beside the user's own skills. */
  | { readonly via: 'home'; readonly dir: string }
  /**
   * A Claude Code plugin folder in the session, named in `session/new` `_meta` at the dotted
   * `path` by `value` (`"{dir}"` is the folder).
   */
  | { readonly via: 'claude-plugin'; readonly path: string; readonly value: unknown }
  | { readonly via: 'none' };

/** How the guidance reaches the agent's instructions. */
export type GuidanceDelivery =
  /** Written as `<home>/<file>`, after the user's own `include` file (relative to their folder). */
  | { readonly via: 'home-file'; readonly file: string; readonly include?: string }
  /** Written as `<home>/<file>`, named by a JSON config `<home>/<config>` (`"{file}"` is its path). */
  | {
      readonly via: 'config-file';
      readonly file: string;
      readonly config: string;
      readonly value: Readonly<Record<string, unknown>>;
    }
  /** Put into `session/new` `_meta` at the dotted `path` as `value` (`"{guidance}"` is the text). */
  | { readonly via: 'meta'; readonly path: string; readonly value: unknown }
  | { readonly via: 'none' };

/** A setting a session may turn on. */
export interface AgentSetting {
  readonly description: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly args?: readonly string[];
}

/** Any ACP agent: the caller gives `launch.command` (and args). */
export const genericAcpDescriptor: AcpAgentDescriptor = Object.freeze({ name: 'acp' });
