/**
 * Whether a tool call is a `connector` tool, decided on facts: the agent's own structured
 * name of the tool (never a title, a description or the tool's input, which a model wrote)
 * read in that agent's naming forms, and a tool the `connector` server served to this
 * session's token. The label a call shows comes from the same proof.
 */
import type { ToolIdentity } from './turn-types.js';

/** The server whose tools `allow-connector` lets run. */
export const CONNECTOR_SERVER = 'connector';

/**
 * How an agent names an MCP tool: a template with `{server}` and `{tool}`, e.g.
 * `mcp__{server}__{tool}` (Claude Code); a final `*` lets anything follow (Gemini CLI's
 * call ids, `mcp_{server}_{tool}__*`).
 */
export type ToolNameForm = string;

/** What the proof needs of a session. */
export interface ToolProofContext {
  /** The agent's naming forms of MCP tools (its provider's or descriptor's data). */
  readonly forms: readonly ToolNameForm[];
  /** True when the `connector` server served this local tool name to the session's token. */
  served(tool: string): boolean;
}

/** How a call is shown: its server (`connector` only when proven) and tool. */
export interface ToolLabel {
  readonly server: string;
  readonly tool: string;
  /** True when the call is proven to be a tool of the `connector` server. */
  readonly connector: boolean;
}

/**
 * The local names of connector tools `name` may stand for in one form: one for an exact
 * form, every split for a form ending in `*` (anything may follow, e.g. a call id).
 */
function localNamesIn(name: string, form: ToolNameForm): string[] {
  const at = form.indexOf('{tool}');
  if (at < 0) return [];
  const open = form.endsWith('*');
  const prefix = form.slice(0, at).replaceAll('{server}', CONNECTOR_SERVER);
  const suffix = form
    .slice(at + '{tool}'.length, open ? -1 : undefined)
    .replaceAll('{server}', CONNECTOR_SERVER);
  if (!name.startsWith(prefix)) return [];
  if (!open) {
    if (name.length <= prefix.length + suffix.length || !name.endsWith(suffix)) return [];
    return [name.slice(prefix.length, name.length - suffix.length)];
  }
  const names: string[] = [];
  for (let end = name.indexOf(suffix, prefix.length + 1); end > 0; ) {
    names.push(name.slice(prefix.length, end));
    end = name.indexOf(suffix, end + 1);
  }
  return names;
}

/** The label of a call, from what the agent itself says of it. */
export function labelOf(identity: ToolIdentity, context: ToolProofContext): ToolLabel {
  if ('server' in identity) {
    if (identity.server === CONNECTOR_SERVER) {
      return context.served(identity.tool)
        ? { server: CONNECTOR_SERVER, tool: identity.tool, connector: true }
        : { server: '', tool: `${identity.server}/${identity.tool}`, connector: false };
    }
    return { server: identity.server, tool: identity.tool, connector: false };
  }
  if ('name' in identity) {
    for (const form of context.forms) {
      for (const tool of localNamesIn(identity.name, form)) {
        if (context.served(tool)) return { server: CONNECTOR_SERVER, tool, connector: true };
      }
    }
    return { server: '', tool: identity.name, connector: false };
  }
  return { server: '', tool: identity.label, connector: false };
}
