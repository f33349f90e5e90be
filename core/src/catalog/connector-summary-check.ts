/**
 * The check of a `ConnectorSummary` list without zod, for clients of the daemon (the
 * `tutti` CLI) that must start fast: importing zod alone is a large part of a CLI call
 * (docs/benchmarks.md). It takes exactly what `connectorSummarySchema` (connector-summary.ts) takes; a property
 * test holds the two equal.
 */
import { CONNECTOR_SERVER_NAME } from '../contracts/connector-server-name.js';
import { isPlainObject } from '../util/objects.js';
import type { ConnectorSummary } from './connector-summary.js';
import {
  adviceOf,
  CLI_STATUSES,
  INTERFACE_STATUSES,
  type InterfaceStatus,
  PENDING_REASONS,
} from './interface-status.js';

const KEY = /^[a-z0-9][a-z0-9-]{0,31}$/;
const SKILL_NAME = /^[a-z0-9]+(-[a-z0-9]+)*$/;
const TOOL_PREFIX = /^[a-z0-9][a-z0-9-]{0,31}_$/;
const CLI_COMMAND = /^tutti-connector-[a-z0-9][a-z0-9-]{0,31}$/;
const STATUSES = new Set<string>(INTERFACE_STATUSES);
const CLI = new Set<string>(CLI_STATUSES);

/** True when `value` is an object with exactly the keys of `keys` (zod's `.strict()`). */
function hasExactly(value: Record<string, unknown>, keys: readonly string[]): boolean {
  const own = Object.keys(value);
  return own.length === keys.length && keys.every((key) => Object.hasOwn(value, key));
}

function isText(value: unknown, min: number, max: number): value is string {
  return typeof value === 'string' && value.length >= min && value.length <= max;
}

function isSkill(value: unknown): boolean {
  return (
    isPlainObject(value) &&
    hasExactly(value, ['name', 'title', 'description']) &&
    isText(value.name, 0, 64) &&
    SKILL_NAME.test(value.name) &&
    isText(value.title, 1, 200) &&
    isText(value.description, 0, 1024)
  );
}

function isInterface(value: unknown): boolean {
  if (!isPlainObject(value) || typeof value.status !== 'string' || !STATUSES.has(value.status)) {
    return false;
  }
  // The advice is the fixed text of the status, and absent exactly when it is `ready`.
  const advice = adviceOf(value.status as InterfaceStatus);
  if (value.advice !== advice || (advice === undefined && Object.hasOwn(value, 'advice'))) {
    return false;
  }
  const fields = advice === undefined ? [] : ['advice'];
  if (value.kind === 'mcp') {
    return (
      hasExactly(value, ['kind', 'serverName', 'toolPrefix', 'status', ...fields]) &&
      value.serverName === CONNECTOR_SERVER_NAME &&
      typeof value.toolPrefix === 'string' &&
      TOOL_PREFIX.test(value.toolPrefix)
    );
  }
  return (
    value.kind === 'cli' &&
    CLI.has(value.status) &&
    hasExactly(value, ['kind', 'command', 'status', ...fields]) &&
    typeof value.command === 'string' &&
    CLI_COMMAND.test(value.command)
  );
}

const REASONS = new Set<unknown>(Object.values(PENDING_REASONS));

/** A `{version, revision}` release, with `extra` keys allowed besides (checked by the caller). */
function isRelease(
  value: unknown,
  extra: readonly string[] = [],
): value is Record<string, unknown> {
  return (
    isPlainObject(value) &&
    hasExactly(value, ['version', 'revision', ...extra]) &&
    isText(value.version, 1, 256) &&
    Number.isSafeInteger(value.revision) &&
    (value.revision as number) >= 0
  );
}

function isSummary(value: unknown): boolean {
  if (!isPlainObject(value)) return false;
  const optional = ['running', 'pending'].filter((key) => Object.hasOwn(value, key));
  return (
    hasExactly(value, ['key', 'name', 'description', 'skills', 'interfaces', ...optional]) &&
    (value.running === undefined || isRelease(value.running)) &&
    (value.pending === undefined ||
      (isRelease(value.pending, ['reason']) && REASONS.has(value.pending.reason))) &&
    typeof value.key === 'string' &&
    KEY.test(value.key) &&
    isText(value.name, 1, 200) &&
    isText(value.description, 0, 2048) &&
    Array.isArray(value.skills) &&
    value.skills.every(isSkill) &&
    Array.isArray(value.interfaces) &&
    value.interfaces.every(isInterface)
  );
}

/**
 * `value` as a list of connector summaries when every entry is one (docs/control-api.md), else
 * undefined. The value is returned as it is, not copied.
 */
export function parseConnectorSummaries(value: unknown): ConnectorSummary[] | undefined {
  return Array.isArray(value) && value.every(isSummary) ? (value as ConnectorSummary[]) : undefined;
}
