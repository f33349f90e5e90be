/**
 * Finds a connector release's Skills: `<skillsFolder>/**\/SKILL.md` with `name` and
 * `description` frontmatter, titled by the first `#` heading. Bounded by
 * {@link SkillLimits}; anything out of bounds, malformed, or reached through a symlink that
 * leaves the release is skipped with a diagnostic, never thrown.
 */
import type { Dirent } from 'node:fs';
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { isAbsolute, join, relative, resolve, sep } from 'node:path';
import type { SkillSummary } from '../catalog/connector-summary.js';
import { firstHeading, parseSkillFile } from './frontmatter.js';
import {
  DEFAULT_SKILL_LIMITS,
  type SkillDiagnostic,
  type SkillDiagnosticCode,
  type SkillLimits,
} from './skill-limits.js';

/** Result of {@link discoverSkills}. */
export interface DiscoveredSkills {
  /** Absolute real path of the skills folder, or undefined when the release has none. */
  root: string | undefined;
  /** Valid skills, sorted by name. */
  skills: SkillSummary[];
  diagnostics: SkillDiagnostic[];
}

const SKILL_FILE = 'SKILL.md';
const SKILL_NAME = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const MAX_NAME = 64;
const MAX_DESCRIPTION = 1024;
const MAX_TITLE = 200;

function isInside(parent: string, child: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

class Walk {
  readonly diagnostics: SkillDiagnostic[] = [];
  readonly found: { path: string; relPath: string }[] = [];
  entries = 0;
  private readonly reported = new Set<SkillDiagnosticCode>();

  constructor(
    readonly release: string,
    readonly limits: SkillLimits,
  ) {}

  note(code: SkillDiagnosticCode, path: string, message: string, once = false): void {
    if (once && this.reported.has(code)) return;
    this.reported.add(code);
    this.diagnostics.push({ code, path: this.rel(path), message });
  }

  rel(path: string): string {
    return relative(this.release, path).split(sep).join('/');
  }

  /** Resolves a symlink; undefined (with a diagnostic) when it leaves the release. */
  async follow(path: string): Promise<string | undefined> {
    try {
      const target = await realpath(path);
      if (isInside(this.release, target)) return target;
    } catch {
      // A dangling link is reported like an escaping one: it leads nowhere in the release.
    }
    this.note(
      'symlink-escape',
      path,
      `${this.rel(path)} is a symlink out of the release: skipped.`,
    );
    return undefined;
  }

  async dir(path: string, depth: number, visited: Set<string>): Promise<void> {
    let entries: Dirent[];
    try {
      entries = await readdir(path, { withFileTypes: true });
    } catch {
      this.note('unreadable', path, `${this.rel(path)} cannot be read: skipped.`);
      return;
    }
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const skillFile = entries.find((entry) => entry.name === SKILL_FILE);
    if (depth > 0 && skillFile) {
      await this.skillFile(join(path, SKILL_FILE), skillFile.isSymbolicLink());
      return;
    }
    for (const entry of entries) {
      if (entry.name.startsWith('.') || entry.name === SKILL_FILE) continue;
      this.entries += 1;
      if (this.entries > this.limits.maxEntries) {
        const message = `more than ${this.limits.maxEntries} entries under the skills folder: the rest are skipped.`;
        this.note('too-many-entries', path, message, true);
        return;
      }
      const child = join(path, entry.name);
      let real = child;
      if (entry.isSymbolicLink()) {
        const target = await this.follow(child);
        if (target === undefined) continue;
        if (!(await stat(target)).isDirectory()) continue;
        real = target;
      } else if (!entry.isDirectory()) {
        continue;
      }
      if (visited.has(real)) continue;
      if (depth + 1 > this.limits.maxDepth) {
        const message = `${this.rel(child)} is deeper than ${this.limits.maxDepth} levels below the skills folder: skipped.`;
        this.note('too-deep', child, message);
        continue;
      }
      visited.add(real);
      await this.dir(real, depth + 1, visited);
    }
  }

  async skillFile(path: string, isLink: boolean): Promise<void> {
    const real = isLink ? await this.follow(path) : path;
    if (real === undefined) return;
    this.found.push({ path: real, relPath: this.rel(path) });
  }
}

function summarize(walk: Walk, relPath: string, text: string): SkillSummary | undefined {
  const { fields, body } = parseSkillFile(text);
  const skip = (code: SkillDiagnosticCode, why: string) => {
    walk.diagnostics.push({ code, path: relPath, message: `${relPath} ${why}: skipped.` });
    return undefined;
  };
  if (!fields) return skip('no-frontmatter', 'has no `---` frontmatter block');
  const name = fields.name?.trim() ?? '';
  const description = fields.description?.replace(/\s+/g, ' ').trim() ?? '';
  if (!name || !description) return skip('missing-field', 'lacks a `name` or `description`');
  if (!SKILL_NAME.test(name) || name.length > MAX_NAME) {
    return skip('invalid-name', `has a name that is not 1-${MAX_NAME} of [a-z0-9-]`);
  }
  const title = (firstHeading(body)?.trim() || name).slice(0, MAX_TITLE);
  return { name, title, description: description.slice(0, MAX_DESCRIPTION) };
}

async function readSkillFile(
  walk: Walk,
  path: string,
  relPath: string,
): Promise<string | undefined> {
  const { maxFileBytes } = walk.limits;
  try {
    const info = await stat(path);
    if (!info.isFile()) throw new Error('not a file');
    if (info.size > maxFileBytes) {
      const message = `${relPath} is ${info.size} bytes, over the ${maxFileBytes}-byte limit: skipped.`;
      walk.diagnostics.push({ code: 'too-large', path: relPath, message });
      return undefined;
    }
    return await readFile(path, 'utf8');
  } catch {
    const message = `${relPath} cannot be read as a file: skipped.`;
    walk.diagnostics.push({ code: 'unreadable', path: relPath, message });
    return undefined;
  }
}

/**
 * Discovers the skills of the release at `releaseDir` under its `skillsFolder`.
 * @example const { root, skills } = await discoverSkills('/state/releases/abc', 'skills');
 */
export async function discoverSkills(
  releaseDir: string,
  skillsFolder = 'skills',
  limits: Partial<SkillLimits> = {},
): Promise<DiscoveredSkills> {
  const release = await realpath(resolve(releaseDir));
  const walk = new Walk(release, { ...DEFAULT_SKILL_LIMITS, ...limits });
  const folder = resolve(release, skillsFolder);
  if (!isInside(release, folder) || folder === release) {
    const message = `the skills folder "${skillsFolder}" is not a folder inside the release: no skills.`;
    walk.diagnostics.push({ code: 'folder-outside-release', path: skillsFolder, message });
    return { root: undefined, skills: [], diagnostics: walk.diagnostics };
  }
  const info = await lstat(folder).catch(() => undefined);
  if (!info) return { root: undefined, skills: [], diagnostics: [] };
  const root = info.isSymbolicLink() ? await walk.follow(folder) : folder;
  if (root === undefined || !(await stat(root)).isDirectory()) {
    return { root: undefined, skills: [], diagnostics: walk.diagnostics };
  }
  await walk.dir(root, 0, new Set([root]));

  const skills: SkillSummary[] = [];
  const names = new Set<string>();
  for (const { path, relPath } of walk.found.sort((a, b) => (a.relPath < b.relPath ? -1 : 1))) {
    if (skills.length >= walk.limits.maxSkills) {
      const message = `more than ${walk.limits.maxSkills} skills: ${relPath} and later ones are skipped.`;
      walk.diagnostics.push({ code: 'too-many-skills', path: relPath, message });
      break;
    }
    const text = await readSkillFile(walk, path, relPath);
    if (text === undefined) continue;
    const summary = summarize(walk, relPath, text);
    if (!summary) continue;
    if (names.has(summary.name)) {
      const message = `${relPath} repeats the skill name "${summary.name}": skipped.`;
      walk.diagnostics.push({ code: 'duplicate-name', path: relPath, message });
      continue;
    }
    names.add(summary.name);
    skills.push(summary);
  }
  skills.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { root, skills, diagnostics: walk.diagnostics };
}
