/**
 * Validates one connector's complete upstream tool list and turns it into the served
 * form: canonical local names, a collision check, frozen JSON copies of every definition,
 * and each served tool's JSON prepared once. Pure: it throws, or returns the whole set.
 */
import type { ConnectorTool, UpstreamTool } from '../contracts/index.js';
import { TuttiError } from '../errors/index.js';
import { deepFreeze, isPlainObject } from '../util/objects.js';
import { inputSchemaProblem } from './input-schema.js';
import { toLocalName } from './local-name.js';
import type { ServedTool } from './types.js';

/** One validated tool: its registry record, its served form and that form's JSON. */
export interface PreparedTool {
  readonly record: ConnectorTool;
  readonly served: ServedTool;
  readonly json: string;
}

/** Served fields in the order they are serialized; other upstream fields follow, sorted. */
const FIELD_ORDER = [
  'title',
  'description',
  'inputSchema',
  'outputSchema',
  'annotations',
  '_meta',
] as const;

/** A name short enough to show in an error message. */
function shown(name: string): string {
  return name.length > 128 ? `${name.slice(0, 128)}...` : name;
}

function invalidTool(key: string, tool: string, reason: string): TuttiError {
  return new TuttiError('TUTTI_ERR_REGISTRY_INVALID_TOOL', { key, tool: shown(tool), reason });
}

/** Copies `value` through JSON so the served tool is exactly what gets serialized. */
function jsonCopy(key: string, name: string, value: unknown): Record<string, unknown> {
  try {
    return JSON.parse(JSON.stringify(value)) as Record<string, unknown>;
  } catch {
    throw invalidTool(key, name, 'it is not plain JSON');
  }
}

function checkFields(key: string, name: string, tool: Record<string, unknown>): void {
  for (const field of ['title', 'description'] as const) {
    if (tool[field] !== undefined && typeof tool[field] !== 'string') {
      throw invalidTool(key, name, `its ${field} must be a string`);
    }
  }
  for (const field of ['outputSchema', 'annotations', '_meta'] as const) {
    if (tool[field] !== undefined && !isPlainObject(tool[field])) {
      throw invalidTool(key, name, `its ${field} must be a JSON object`);
    }
  }
  const problem = inputSchemaProblem(tool.inputSchema);
  if (problem !== undefined) {
    throw new TuttiError('TUTTI_ERR_REGISTRY_INVALID_SCHEMA', {
      key,
      tool: shown(name),
      reason: problem,
    });
  }
}

function servedForm(localName: string, copy: Record<string, unknown>): ServedTool {
  const served: Record<string, unknown> = { name: localName };
  for (const field of FIELD_ORDER) if (copy[field] !== undefined) served[field] = copy[field];
  // `__proto__` would set the prototype instead of a field: it is never served.
  const known = new Set<string>(['name', '__proto__', ...FIELD_ORDER]);
  const extra = Object.keys(copy).filter((field) => !known.has(field));
  for (const field of extra.sort()) served[field] = copy[field];
  return Object.freeze(served) as unknown as ServedTool;
}

/**
 * Validates `tools` of connector `key` (a valid key) and prepares them, sorted by local
 * name. Throws TUTTI_ERR_REGISTRY_INVALID_TOOL, _INVALID_SCHEMA or _NAME_COLLISION.
 */
export function prepareConnectorTools(
  key: string,
  tools: readonly UpstreamTool[],
): readonly PreparedTool[] {
  if (!Array.isArray(tools)) throw invalidTool(key, '*', 'the tool list must be an array');
  const byLocalName = new Map<string, string>();
  const prepared: PreparedTool[] = [];
  tools.forEach((tool: unknown, index) => {
    if (!isPlainObject(tool)) throw invalidTool(key, `#${index}`, 'it must be a JSON object');
    const name = tool.name;
    if (typeof name !== 'string' || name.length === 0) {
      throw invalidTool(key, `#${index}`, 'its name must be a non-empty string');
    }
    const copy = jsonCopy(key, name, tool);
    checkFields(key, name, copy);
    const localName = toLocalName(key, name);
    const other = byLocalName.get(localName);
    if (other === name) throw invalidTool(key, name, 'it is listed more than once');
    if (other !== undefined) {
      const [first, second] = [other, name].sort();
      throw new TuttiError('TUTTI_ERR_REGISTRY_NAME_COLLISION', {
        key,
        first: shown(first!),
        second: shown(second!),
        localName,
      });
    }
    byLocalName.set(localName, name);
    deepFreeze(copy);
    const served = servedForm(localName, copy);
    const record = Object.freeze({
      localName,
      upstreamName: name,
      tool: copy as unknown as UpstreamTool,
    });
    prepared.push({ record, served, json: JSON.stringify(served) });
  });
  return prepared.sort((a, b) => compareCodeUnits(a.record.localName, b.record.localName));
}

/** Orders strings by UTF-16 code units, the one order of every sorted list here. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
