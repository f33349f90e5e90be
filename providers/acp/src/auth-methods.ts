/**
 * The `authMethods` an ACP agent names in its `initialize` answer, as the host is shown
 * them in the session's info: text the agent wrote, so bounded (at most 16 methods, short
 * strings) and reduced to `{id, name, description?}`.
 */
import type { AgentAuthMethod } from '@tutti/core';

const MAX_METHODS = 16;
const MAX_TEXT = 500;

const text = (value: unknown): string | undefined =>
  typeof value === 'string' && value.length > 0 ? value.slice(0, MAX_TEXT) : undefined;

/** The well-formed methods of an `initialize` answer's `authMethods`. */
export function authMethodsOf(announced: unknown): readonly AgentAuthMethod[] {
  if (!Array.isArray(announced)) return [];
  const methods: AgentAuthMethod[] = [];
  for (const method of announced.slice(0, MAX_METHODS)) {
    if (!method || typeof method !== 'object') continue;
    const { id, name, description } = method as Record<string, unknown>;
    const shown = { id: text(id), name: text(name), description: text(description) };
    if (!shown.id || !shown.name) continue;
    methods.push({
      id: shown.id,
      name: shown.name,
      ...(shown.description ? { description: shown.description } : {}),
    });
  }
  return methods;
}
