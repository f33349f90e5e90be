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
}

/** Environment that keeps opencode offline and free of downloads (docs/agents.md). */
export const OPENCODE_OFFLINE_ENV: Readonly<Record<string, string>> = Object.freeze({
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
  OPENCODE_DISABLE_SHARE: '1',
});

/**
 * opencode: `opencode acp`; declares HTTP MCP. Its MCP client honours list_changed, but it
 * speaks MCP 2025-06-18, where the `connector` server is POST-only and declares
 * `tools.listChanged=false`: no notification reaches it (its GET event stream gets 405), so
 * it is refreshed by native reload (`session/resume` with a new binding) instead.
 */
export const opencodeDescriptor: AcpAgentDescriptor = Object.freeze({
  name: 'opencode',
  command: 'opencode',
  args: ['acp'],
  env: OPENCODE_OFFLINE_ENV,
  listChanged: false,
});

/** Any ACP agent: the caller gives `launch.command` (and args). */
export const genericAcpDescriptor: AcpAgentDescriptor = Object.freeze({ name: 'acp' });
