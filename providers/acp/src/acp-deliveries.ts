/**
 * What a descriptor delivers inside the ACP session params of a bound session: a Claude
 * Code plugin folder with the connector skills named in `_meta`, the guidance in `_meta` or
 * in the ACP `systemPrompt` field (append mode, only to an agent that declares it). A plain
 * session's params carry none of it.
 */
import type { PreparedRuntime, SessionHookContext } from '@tutti/core';
import { join } from 'node:path';
import type { AcpAgentDescriptor } from './descriptors.js';
import type { AcpSessionParams } from './project-params.js';

/** Folder of a Claude Code plugin with the connector skills, inside the session folder. */
export const PLUGIN_DIR = 'claude-skills';

/** Sets `value` at a dotted `path` of `target`, keeping what is there. */
function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    const next = node[key];
    node[key] = next && typeof next === 'object' && !Array.isArray(next) ? { ...next } : {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys[keys.length - 1]!] = value;
}

/** `value` with `"{name}"` strings replaced by `values[name]`. */
function fill(value: unknown, values: Record<string, string>): unknown {
  if (typeof value === 'string') {
    return value.replace(/\{(\w+)\}/g, (whole, name: string) => values[name] ?? whole);
  }
  if (Array.isArray(value)) return value.map((item) => fill(item, values));
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, values)]));
  }
  return value;
}

/** Whether the agent declared the (unstable) ACP `systemPrompt` session field. */
export function takesSystemPrompt(
  declared: Readonly<Record<string, unknown>> | undefined,
): boolean {
  const sessionCapabilities = declared?.sessionCapabilities as Record<string, unknown> | undefined;
  return Boolean(sessionCapabilities?.systemPrompt);
}

/**
 * The params with what the descriptor delivers through them: what makes the agent ask
 * under the session's permission mode (every session), the skills and the guidance (bound
 * sessions only).
 */
export function withDeliveries(
  params: AcpSessionParams,
  descriptor: AcpAgentDescriptor,
  runtime: PreparedRuntime,
  session: SessionHookContext,
): AcpSessionParams {
  const mode = session.permissions === 'agent' ? undefined : session.permissions;
  const asking = mode ? descriptor.permissions?.modes[mode]?.meta : undefined;
  if (asking?.length) {
    const meta: Record<string, unknown> = { ...params._meta };
    for (const { path, value } of asking) setPath(meta, path, value);
    params = { ...params, _meta: meta };
  }
  if (runtime.mcpServers.length === 0) return params;
  const meta: Record<string, unknown> = { ...params._meta };
  const { skills, guidance } = descriptor;
  if (skills?.via === 'claude-plugin' && runtime.skillRoots.length > 0) {
    setPath(meta, skills.path, fill(skills.value, { dir: join(session.filesDir, PLUGIN_DIR) }));
  }
  if (guidance?.via === 'meta' && runtime.guidance) {
    setPath(meta, guidance.path, fill(guidance.value, { guidance: runtime.guidance }));
  }
  const next = Object.keys(meta).length > 0 ? { ...params, _meta: meta } : { ...params };
  if (
    guidance?.via === 'system-prompt' &&
    runtime.guidance &&
    takesSystemPrompt(session.declared)
  ) {
    next.systemPrompt = { mode: 'append', content: [{ type: 'text', text: runtime.guidance }] };
  }
  return next;
}
