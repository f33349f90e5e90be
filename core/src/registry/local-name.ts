/**
 * The ONE canonicalization rule of connector keys and local tool names. A local name is
 * `<key>_<tool>`, at most {@link LOCAL_NAME_MAX_LENGTH} characters from `[A-Za-z0-9_-]`;
 * characters outside that set become `_`, and an over-long name keeps its key prefix, is
 * shortened, and ends in `_<hash>` (sha256 of the exact upstream name, 8 hex digits).
 * Keys contain no `_`, so the first `_` always splits key and tool; the way back to the
 * upstream name is a table kept by the registry, never parsing of a mangled name.
 */
import { createHash } from 'node:crypto';
import { TuttiError } from '../errors/index.js';

/** Longest local name: real clients cap `mcp__connector__<name>` at 64 characters. */
export const LOCAL_NAME_MAX_LENGTH = 48;

/** Longest connector key. */
export const CONNECTOR_KEY_MAX_LENGTH = 32;

/** Hex digits of the upstream-name hash that ends a shortened local name. */
export const LOCAL_NAME_HASH_LENGTH = 8;

const CONNECTOR_KEY_PATTERN = /^[a-z0-9][a-z0-9-]{0,31}$/;
const NOT_LOCAL_NAME_CHARACTER = /[^A-Za-z0-9_-]/gu;

/** True when `key` is a connector key: 1-32 of `[a-z0-9-]`, not starting with `-`. */
export function isConnectorKey(key: unknown): key is string {
  return typeof key === 'string' && CONNECTOR_KEY_PATTERN.test(key);
}

/** Throws TUTTI_ERR_REGISTRY_INVALID_KEY unless `key` is a connector key. */
export function assertConnectorKey(key: unknown): asserts key is string {
  if (!isConnectorKey(key)) {
    throw new TuttiError('TUTTI_ERR_REGISTRY_INVALID_KEY', { key: String(key).slice(0, 64) });
  }
}

/** The prefix every local name of `key` starts with, e.g. `github_`. */
export function toolPrefix(key: string): string {
  return `${key}_`;
}

/**
 * The local name of upstream tool `upstreamName` of connector `key` (a valid key).
 * @example toLocalName('github', 'search.issues') // 'github_search_issues'
 */
export function toLocalName(key: string, upstreamName: string): string {
  const prefix = toolPrefix(key);
  const tool = upstreamName.replace(NOT_LOCAL_NAME_CHARACTER, '_');
  if (prefix.length + tool.length <= LOCAL_NAME_MAX_LENGTH) return prefix + tool;
  const hash = createHash('sha256')
    .update(upstreamName, 'utf8')
    .digest('hex')
    .slice(0, LOCAL_NAME_HASH_LENGTH);
  const room = LOCAL_NAME_MAX_LENGTH - prefix.length - hash.length - 1;
  return `${prefix}${tool.slice(0, room)}_${hash}`;
}
