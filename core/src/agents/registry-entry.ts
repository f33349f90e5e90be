/**
 * The `agent.json` of an ACP registry entry, as the installer accepts it: `id`, `name`,
 * `version`, `description` and a `distribution` (`npx`, `uvx`, or a `binary` per
 * platform). Fields the registry adds over time are allowed at the top level; the targets
 * inside `distribution` are strict, since they say what runs. A refusal is
 * TUTTI_ERR_AGENT_BAD_ENTRY naming the field and the fix.
 */
import { z } from 'zod';
import { TuttiError } from '../errors/index.js';
import { formatPath } from '../manifest/manifest-issues.js';

/** The platform keys of the registry's binary targets. */
export const PLATFORM_KEYS = [
  'darwin-aarch64',
  'darwin-x86_64',
  'linux-aarch64',
  'linux-x86_64',
  'windows-aarch64',
  'windows-x86_64',
] as const;

/** An agent id: the provider name and the folder name under `<home>/agents/`. */
export const AGENT_ID = /^[a-z][a-z0-9-]{0,63}$/;
/** A version usable as a folder name: starts with a digit (or `v` and a digit). */
export const AGENT_VERSION = /^v?[0-9][0-9A-Za-z.+_-]{0,63}$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

const envMap = z.record(z.string().regex(ENV_NAME), z.string());
const args = z.array(z.string());

const packageTarget = z.strictObject({
  package: z.string().min(1).max(300),
  args: args.optional(),
  env: envMap.optional(),
  cmd: z.string().min(1).max(300).optional(),
});

const binaryTarget = z.strictObject({
  archive: z.string().min(1).max(4000),
  sha256: z
    .string()
    .regex(/^[0-9a-fA-F]{64}$/)
    .optional(),
  cmd: z.string().min(1).max(300),
  args: args.optional(),
  env: envMap.optional(),
});

const entrySchema = z.looseObject({
  id: z.string().regex(AGENT_ID),
  name: z.string().min(1).max(200),
  version: z.string().regex(AGENT_VERSION),
  description: z.string().max(4000),
  distribution: z
    .looseObject({
      npx: packageTarget.optional(),
      uvx: packageTarget.optional(),
      binary: z.record(z.string().regex(/^[a-z0-9]+-[a-z0-9_]+$/), binaryTarget).optional(),
    })
    .refine((d) => d.npx || d.uvx || (d.binary && Object.keys(d.binary).length > 0), {
      message: 'no distribution',
    }),
});

/** A registry entry the installer accepted. */
export type RegistryEntry = z.infer<typeof entrySchema>;
/** An `npx` or `uvx` target. */
export type PackageTarget = z.infer<typeof packageTarget>;
/** One platform's `binary` target. */
export type BinaryTarget = z.infer<typeof binaryTarget>;

/** What to do about a field, by path with indices and keys dropped. */
const FIXES: Record<string, string> = {
  '(entry)': 'send the agent.json object',
  id: 'use 1-64 lowercase letters, digits or "-", starting with a letter (e.g. "my-agent")',
  name: 'set a display name (1-200 characters)',
  version: 'set the agent version, e.g. "1.2.0"',
  description: 'say in one sentence what the agent is',
  distribution: 'add "npx", "uvx" or "binary" to "distribution"',
  'distribution.npx': 'set {"package": "name@1.2.3", "args"?, "env"?, "cmd"?} and nothing else',
  'distribution.uvx': 'set {"package": "name==1.2.3", "args"?, "env"?, "cmd"?} and nothing else',
  'distribution.binary':
    'key each target by a platform ("linux-x86_64", "darwin-aarch64", ...) and set {"archive", "sha256", "cmd", "args"?, "env"?}',
  package: 'name the package with its exact version',
  cmd: 'name the program to run, e.g. "./my-agent"',
  args: 'list the arguments as an array of strings',
  env: 'map variable names (letters, digits, "_", not starting with a digit) to string values',
  archive: 'set the https URL of the archive',
  sha256: 'set the SHA-256 of the archive as 64 hex digits',
};

function fixFor(path: readonly PropertyKey[]): string {
  const named = path.filter((part): part is string => typeof part === 'string');
  const full = named.join('.');
  if (FIXES[full]) return FIXES[full];
  const last = named.at(-1);
  if (last && FIXES[last]) return FIXES[last];
  for (let n = named.length - 1; n > 0; n--) {
    const prefix = named.slice(0, n).join('.');
    if (FIXES[prefix]) return FIXES[prefix];
  }
  return FIXES[named[0] ?? '(entry)'] ?? 'fix the field';
}

/** The path of the first string holding a NUL character, anywhere in `value`. */
function findNul(value: unknown, path: PropertyKey[] = []): PropertyKey[] | undefined {
  if (typeof value === 'string') return value.includes('\0') ? path : undefined;
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) {
      const found = findNul(item, [...path, index]);
      if (found) return found;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (key.includes('\0')) return [...path, key];
      const found = findNul(item, [...path, key]);
      if (found) return found;
    }
  }
  return undefined;
}

/** A field path for a message; `(entry)` for the whole entry. */
function fieldOf(path: readonly PropertyKey[]): string {
  return path.length === 0 ? '(entry)' : formatPath(path);
}

/** The entry's id for a message, or `(unknown)` when it has none worth showing. */
function shownId(raw: unknown): string {
  const id = (raw as { id?: unknown } | null)?.id;
  return typeof id === 'string' && AGENT_ID.test(id) ? id : '(unknown)';
}

/**
 * Checks a registry entry; TUTTI_ERR_AGENT_BAD_ENTRY names the first wrong field.
 * @example const entry = parseRegistryEntry(JSON.parse(text));
 */
export function parseRegistryEntry(raw: unknown): RegistryEntry {
  const nul = findNul(raw);
  if (nul) {
    throw new TuttiError('TUTTI_ERR_AGENT_BAD_ENTRY', {
      id: shownId(raw),
      field: fieldOf(nul),
      problem: 'holds a NUL character: remove it',
    });
  }
  const parsed = entrySchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  const path =
    issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path;
  const problem =
    issue.code === 'unrecognized_keys'
      ? 'is not a field of this target'
      : issue.path.length === 0 && issue.code === 'invalid_type'
        ? 'is not a JSON object'
        : issue.message;
  throw new TuttiError('TUTTI_ERR_AGENT_BAD_ENTRY', {
    id: shownId(raw),
    field: fieldOf(path),
    problem: `${problem}: ${fixFor(path)}`,
  });
}
