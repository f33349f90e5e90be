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
  /**
   * Whether a live session takes a new binding through `session/resume` or `session/load`
   * in the agent's running process (default true). False for an agent that answers the
   * request without reconnecting, or fails it: the session then asks for a resume or
   * restart by whoever drives it.
   */
  readonly liveReload?: boolean;
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
  /**
   * The ACP session mode set (`session/set_mode`) after every `session/new`, `session/load`
   * and `session/resume`, e.g. an ask-first mode so the daemon's permission policy decides
   * instead of the agent's own classifier.
   */
  readonly sessionMode?: string;
  /**
   * How the agent is made to ask before its tools run, and where it names a tool in fields
   * of its own. Absent: the daemon cannot make it ask, so its sessions take `agent` only.
   */
  readonly permissions?: AcpPermissions;
}

/**
 * A field of an ACP tool call (a `tool_call` update, or a permission request's
 * `toolCall`) that the agent fills with its own identity of the tool: a dotted path to its
 * tool name, or to the MCP server and the tool. Never a title, a description or the
 * model's input.
 */
export type ToolIdentityField =
  | { readonly name: string }
  | { readonly server: string; readonly tool: string };

/**
 * A file of the session home written under a permission mode: `merge` deep-merged over
 * the user's file of that name (JSON, or TOML for `.toml`; an `"{each}"` key applies to every
 * entry the table already has), or `text` as it is. The user's file is then not linked.
 */
export type PermissionFile =
  | { readonly merge: Readonly<Record<string, unknown>> }
  | { readonly text: string };

/** What a permission mode writes into the home so the agent asks before its tools run. */
export interface PermissionModeSetup {
  /** Files of the home, by path relative to it. */
  readonly files: Readonly<Record<string, PermissionFile>>;
  /** Values put at dotted paths of the `_meta` of `session/new`, `load` and `resume`. */
  readonly meta?: readonly { readonly path: string; readonly value: unknown }[];
}

/** What an ACP agent's descriptor says of its permissions. */
export interface AcpPermissions {
  /** The modes, besides `agent`, its settings make it keep, with what each writes. */
  readonly modes: Readonly<Partial<Record<'ask' | 'allow-connector', PermissionModeSetup>>>;
  /** Where it names a call's tool, first that is filled wins. */
  readonly identity: readonly ToolIdentityField[];
  /** Its naming forms of MCP tools in a `name` (`mcp__{server}__{tool}`). */
  readonly toolNames: readonly string[];
  /**
   * Its own tools that run another tool, which only the permission request names (Qwen's
   * `tool_call`): a call first seen under one is labelled by its permission request.
   */
  readonly bridges?: readonly string[];
  /** Variables that would override what the modes write: removed from its environment. */
  readonly clearEnv?: readonly string[];
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
  /**
   * Where the mirror of the user's folder sits inside the home the variable names, for an
   * agent whose variable stands for the user's home directory (Gemini: `.gemini`). Every
   * other path of the home (link, keep, seed, skills, guidance) is inside this folder.
   */
  readonly subdir?: string;
  /** Other user paths linked into the home when they exist: name in the home -> candidates. */
  readonly alsoLink?: Readonly<Record<string, readonly string[]>>;
  /**
   * Linked user files the agent may replace with a new file (a refreshed login written and
   * renamed over the link): copied back to the user's folder when the session ends.
   */
  readonly writeBack?: readonly string[];
  /**
   * Declared non-secret entries of the user's folder (files, or folders copied whole)
   * copied into the home, so the session may change its copy (a `config.yaml` its skill
   * roots are merged into). Never written back; credentials stay linked, never copied.
   */
  readonly copy?: readonly string[];
}

/**
 * A YAML string list in a config file of the home that a bound session's connector skills
 * folder is added to (`skills.external_dirs` of `config.yaml`).
 */
export interface YamlSkillList {
  /** The config file, relative to the home (`.yaml` or `.yml`). */
  readonly file: string;
  /** The dotted path of the list in it (`skills.external_dirs`). */
  readonly key: string;
}

/** How connector skills reach the agent. */
export type SkillsDelivery =
  /**
   * Linked into `<home>/<dir>`, beside the user's own skills; with `yamlList`, that folder's
   * path is also added to a YAML string list of a config file of the home.
   */
  | {
      readonly via: 'home';
      readonly dir: string;
      readonly yamlList?: YamlSkillList;
      /**
       * `start`: the agent reads its skills (and the `yamlList` file) only when its process
       * starts: they are linked and merged before the start from a preview of the session,
       * and the agent is started again if the session turns out plain.
       */
      readonly readAt?: 'session' | 'start';
    }
  /**
   * A Claude Code plugin folder in the session, named in `session/new` `_meta` at the dotted
   * `path` by `value` (`"{dir}"` is the folder).
   */
  | { readonly via: 'claude-plugin'; readonly path: string; readonly value: unknown }
  | { readonly via: 'none' };

/** How the guidance reaches the agent's instructions. */
export type GuidanceDelivery =
  /**
   * Written as `<home>/<file>`, after the user's own `include` file (relative to their
   * folder). `readAt: 'start'` is for an agent that reads it only when its process starts:
   * it is written before the start from a preview of the session, and the agent is started
   * once more if the prepared session differs (a plain one gets the user's file alone).
   */
  | {
      readonly via: 'home-file';
      readonly file: string;
      readonly include?: string;
      readonly readAt?: 'session' | 'start';
    }
  /** Written as `<home>/<file>`, named by a JSON config `<home>/<config>` (`"{file}"` is its path). */
  | {
      readonly via: 'config-file';
      readonly file: string;
      readonly config: string;
      readonly value: Readonly<Record<string, unknown>>;
    }
  /** Put into `session/new` `_meta` at the dotted `path` as `value` (`"{guidance}"` is the text). */
  | { readonly via: 'meta'; readonly path: string; readonly value: unknown }
  /**
   * The ACP `systemPrompt` field (`mode: "append"`) of `session/new`, `load` and `resume`,
   * sent only to an agent that declares `sessionCapabilities.systemPrompt`.
   */
  | { readonly via: 'system-prompt' }
  | { readonly via: 'none' };

/** A setting a session may turn on. */
export interface AgentSetting {
  readonly description: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly args?: readonly string[];
}

/** Any ACP agent: the caller gives `launch.command` (and args). */
export const genericAcpDescriptor: AcpAgentDescriptor = Object.freeze({ name: 'acp' });
