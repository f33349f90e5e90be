/**
 * Turns zod issues about a manifest into plain sentences of the form
 * `<field path>: <what is wrong>: <what to do>`, e.g.
 * `mcp.command: required: set the command that starts the MCP server`.
 */
import type { z } from 'zod';

/** One problem of a manifest: the field, what is wrong, and the fix. */
export interface ManifestIssue {
  /** Dotted field path, e.g. `mcp.args[0]`; `(manifest)` for the whole file. */
  readonly path: string;
  readonly problem: string;
  readonly fix: string;
}

/** What to do about a field, by normalized path (indices shown as `[]`). */
const FIXES: Record<string, string> = {
  '': 'fix the manifest',
  $schema: 'use a string (a URL of the schema) or remove it',
  key: 'use 1-32 lowercase letters, digits or "-", starting with a letter or digit (no "_")',
  name: 'set a short display name (1-64 characters)',
  description: 'say in one sentence (1-1000 characters) what the connector does',
  version: 'set the release version as a semantic version, e.g. "1.2.0"',
  mcp: 'set "command" for a stdio server or "url" for a remote server',
  'mcp.command': 'set the command that starts the MCP server',
  'mcp.args': 'list the arguments as an array of strings',
  'mcp.args[]': 'use a non-empty string; "./" paths must stay inside the release',
  'mcp.env': 'map environment variable names to string values',
  'mcp.url': 'set the https URL of the remote Streamable HTTP endpoint',
  'mcp.protocol': 'use "2025-06-18" or "2026-07-28", or remove it to negotiate',
  'mcp.sandbox': 'use "filesystem", "network", "env" and "limits", or remove the block',
  'mcp.sandbox.filesystem':
    'name a path under the home as "~/folder", outside the protected folders',
  'mcp.sandbox.network': 'use "none" or "host"',
  'mcp.sandbox.env': 'name a variable of the daemon\'s environment, e.g. "GIT_AUTHOR_NAME"',
  'mcp.sandbox.limits': 'set "memoryMiB" (64-65536) and "processes" (8-4096), or remove them',
  'mcp.sandbox.limits.memoryMiB': 'use a whole number of MiB from 64 to 65536',
  'mcp.sandbox.limits.processes': 'use a whole number from 8 to 4096',
  cli: 'set "command" (and optional "args") of the CLI entrypoint',
  'cli.command': 'set the command that runs the CLI, e.g. "./bin/hello.mjs"',
  'cli.args': 'list the arguments as an array of strings',
  'cli.args[]': 'use a non-empty string; "./" paths must stay inside the release',
  skills: 'name a folder inside the release that holds <skill>/SKILL.md',
  auth: 'set "kind" to "none", "api_key" or "oauth2"',
  'auth.kind': 'use "none", "api_key" or "oauth2"',
  'auth.env': 'name the environment variable that carries the credential',
  'auth.header': 'name the HTTP header that carries the key, e.g. "Authorization"',
  'auth.prefix': 'use a string such as "Bearer ", or remove it',
};

/** Formats a field path: `['mcp', 'args', 0]` -> `mcp.args[0]`; `[]` -> `(manifest)`. */
export function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(manifest)';
  let out = '';
  for (const part of path) {
    if (typeof part === 'number') out += `[${part}]`;
    else out += out === '' ? String(part) : `.${String(part)}`;
  }
  return out;
}

/** The fix of the most specific known field that `path` lies in. */
function fixFor(path: readonly PropertyKey[]): string {
  const parts = path.map((part) => (typeof part === 'number' ? '[]' : String(part)));
  for (let length = parts.length; length >= 0; length -= 1) {
    const key = parts
      .slice(0, length)
      .join('.')
      .replace(/\.\[\]/g, '[]');
    const fix = FIXES[key];
    if (fix) return fix;
  }
  return FIXES['']!;
}

function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let value = root;
  for (const part of path) {
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<PropertyKey, unknown>)[part];
  }
  return value;
}

/** What is wrong, in a few words, for one (non-union) zod issue. */
function problemOf(issue: z.core.$ZodIssue, input: unknown, path: readonly PropertyKey[]): string {
  switch (issue.code) {
    case 'invalid_type': {
      const value = valueAt(input, path);
      return value === undefined
        ? 'required'
        : `expected ${issue.expected}, got ${describeType(value)}`;
    }
    case 'too_small':
      return issue.origin === 'string' && issue.minimum === 1
        ? 'must not be empty'
        : `too short (minimum ${String(issue.minimum)})`;
    case 'too_big':
      return `too long (maximum ${String(issue.maximum)})`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'url' ? 'not a valid URL' : issue.message;
    case 'invalid_key':
      return issue.issues[0]?.message ?? issue.message;
    default:
      return issue.message;
  }
}

/** Flattens zod issues of `input` into manifest issues, sorted by path. */
export function manifestIssues(error: z.ZodError, input: unknown): ManifestIssue[] {
  const out: ManifestIssue[] = [];
  const visit = (issue: z.core.$ZodIssue, prefix: readonly PropertyKey[]): void => {
    const path = [...prefix, ...issue.path];
    if (issue.code === 'invalid_union' && issue.errors.length > 0) {
      // Report the branch the input came closest to (first on a tie). Unknown fields weigh
      // double: `{url, protocol}` is a remote endpoint with bad values, not a stdio server.
      const weight = (issues: z.core.$ZodIssue[]) =>
        issues.reduce(
          (sum, i) => sum + (i.code === 'unrecognized_keys' ? 2 * i.keys.length : 1),
          0,
        );
      const branch = issue.errors.reduce((best, next) =>
        weight(next) < weight(best) ? next : best,
      );
      for (const inner of branch) visit(inner, path);
      return;
    }
    if (issue.code === 'invalid_union') {
      // A discriminated union whose discriminator (e.g. `auth.kind`) is missing or unknown.
      const value = valueAt(input, path);
      const problem = value === undefined ? 'required' : `unknown value ${JSON.stringify(value)}`;
      out.push({ path: formatPath(path), problem, fix: fixFor(path) });
      return;
    }
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) {
        out.push({
          path: formatPath([...path, key]),
          problem: 'unknown field',
          fix: 'remove it or check its spelling',
        });
      }
      return;
    }
    const params =
      issue.code === 'custom' ? (issue.params as { fix?: string } | undefined) : undefined;
    out.push({
      path: formatPath(path),
      problem: problemOf(issue, input, path),
      fix: params?.fix ?? fixFor(path),
    });
  };
  for (const issue of error.issues) visit(issue, []);
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** One line per issue: `path: problem: fix`. */
export function formatIssue(issue: ManifestIssue): string {
  return `${issue.path}: ${issue.problem}: ${issue.fix}`;
}
