/**
 * Reads and validates `tutti-connector.json`: `parseManifest` checks the JSON alone,
 * `readManifest` also checks the release folder (declared files and skills exist).
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { TuttiError } from '../errors/index.js';
import { formatIssue, type ManifestIssue, manifestIssues } from './manifest-issues.js';
import { type ConnectorManifest, MANIFEST_FILE, manifestSchema } from './manifest-schema.js';
import { isReleaseRelativeCommand, resolveReleasePaths } from './release-paths.js';

/** Outcome of {@link validateManifest}. */
export type ManifestValidation =
  | { readonly ok: true; readonly manifest: ConnectorManifest }
  | { readonly ok: false; readonly issues: readonly ManifestIssue[] };

/** Validates a parsed manifest value without throwing. */
export function validateManifest(value: unknown): ManifestValidation {
  const result = manifestSchema.safeParse(value);
  if (result.success) return { ok: true, manifest: result.data };
  return { ok: false, issues: manifestIssues(result.error, value) };
}

/** The TuttiError for a manifest with `issues`; `source` names the file. */
export function invalidManifestError(source: string, issues: readonly ManifestIssue[]): TuttiError {
  return new TuttiError('TUTTI_ERR_MANIFEST_INVALID', {
    source,
    count: issues.length,
    problems: issues.map(formatIssue).join('; '),
  });
}

/**
 * Parses manifest JSON text (or an already parsed value) and validates it.
 * Throws TUTTI_ERR_MANIFEST_INVALID_JSON or TUTTI_ERR_MANIFEST_INVALID naming `source`.
 */
export function parseManifest(json: unknown, source: string): ConnectorManifest {
  let value: unknown = json;
  if (typeof json === 'string') {
    try {
      value = JSON.parse(json);
    } catch (error) {
      throw new TuttiError(
        'TUTTI_ERR_MANIFEST_INVALID_JSON',
        { source, reason: (error as Error).message },
        { cause: error },
      );
    }
  }
  const result = validateManifest(value);
  if (!result.ok) throw invalidManifestError(source, result.issues);
  return result.manifest;
}

/** Names of the folders in `skillsDir` that hold a `SKILL.md`, sorted; none when absent. */
export async function listSkills(skillsDir: string): Promise<string[]> {
  let entries: import('node:fs').Dirent[];
  try {
    entries = await readdir(skillsDir, { withFileTypes: true });
  } catch {
    return [];
  }
  const names: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory()) continue;
    if (await isFile(join(skillsDir, entry.name, 'SKILL.md'))) names.push(entry.name);
  }
  return names.sort();
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isFile() ?? false;
}

async function isDirectory(path: string): Promise<boolean> {
  return (await stat(path).catch(() => undefined))?.isDirectory() ?? false;
}

/** Checks what the manifest declares against the files of the release folder. */
async function releaseIssues(
  manifest: ConnectorManifest,
  releaseDir: string,
): Promise<ManifestIssue[]> {
  const issues: ManifestIssue[] = [];
  const resolved = resolveReleasePaths(manifest, releaseDir);
  const commands: [string, string | undefined, string | undefined][] = [
    [
      'mcp.command',
      manifest.mcp && 'command' in manifest.mcp ? manifest.mcp.command : undefined,
      resolved.mcp?.transport === 'stdio' ? resolved.mcp.command : undefined,
    ],
    ['cli.command', manifest.cli?.command, resolved.cli?.command],
  ];
  for (const [path, declared, absolute] of commands) {
    if (declared && isReleaseRelativeCommand(declared) && absolute && !(await isFile(absolute))) {
      issues.push({
        path,
        problem: `file "${declared}" not found in the release`,
        fix: 'add the file to the release or fix the path',
      });
    }
  }
  if (manifest.skills !== undefined && !(await isDirectory(resolved.skillsDir))) {
    issues.push({
      path: 'skills',
      problem: `folder "${manifest.skills}" not found in the release`,
      fix: 'add the folder or remove the field',
    });
  } else if (
    !manifest.mcp &&
    !manifest.cli &&
    (await listSkills(resolved.skillsDir)).length === 0
  ) {
    issues.push({
      path: 'skills',
      problem: 'no <skill>/SKILL.md found and no "mcp" or "cli" declared',
      fix: 'add a skill folder with a SKILL.md, or declare "mcp" or "cli"',
    });
  }
  return issues;
}

/**
 * Reads `<releaseDir>/tutti-connector.json`, validates it and checks it against the
 * release's files. Throws TUTTI_ERR_MANIFEST_UNREADABLE, _INVALID_JSON or _INVALID, naming
 * the manifest under `shownDir` (default `releaseDir`), e.g. the folder a copy came from.
 */
export async function readManifest(
  releaseDir: string,
  shownDir: string = releaseDir,
): Promise<ConnectorManifest> {
  const source = join(shownDir, MANIFEST_FILE);
  let text: string;
  try {
    text = await readFile(join(releaseDir, MANIFEST_FILE), 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new TuttiError('TUTTI_ERR_MANIFEST_UNREADABLE', { source, reason }, { cause: error });
  }
  const manifest = parseManifest(text, source);
  const issues = await releaseIssues(manifest, releaseDir);
  if (issues.length > 0) throw invalidManifestError(source, issues);
  return manifest;
}
