/** Limits of skill discovery and the non-fatal diagnostics it reports. */

/** Bounds on what {@link discoverSkills} reads from one release. */
export interface SkillLimits {
  /** Most skills kept per release; later ones (by path) are skipped. */
  maxSkills: number;
  /** Deepest folder level of a skill below the skills folder (`skills/a` is 1). */
  maxDepth: number;
  /** Largest SKILL.md read, in bytes. */
  maxFileBytes: number;
  /** Most directory entries looked at in one release. */
  maxEntries: number;
}

/** Limits used when the caller gives none. */
export const DEFAULT_SKILL_LIMITS: Readonly<SkillLimits> = Object.freeze({
  maxSkills: 64,
  maxDepth: 3,
  maxFileBytes: 256 * 1024,
  maxEntries: 4096,
});

/** What went wrong with one file or folder; discovery goes on with the rest. */
export type SkillDiagnosticCode =
  | 'folder-outside-release'
  | 'symlink-escape'
  | 'too-deep'
  | 'too-large'
  | 'too-many-skills'
  | 'too-many-entries'
  | 'no-frontmatter'
  | 'missing-field'
  | 'invalid-name'
  | 'duplicate-name'
  | 'unreadable';

/** A non-fatal problem found while discovering skills. */
export interface SkillDiagnostic {
  code: SkillDiagnosticCode;
  /** Path relative to the release folder, `/`-separated. */
  path: string;
  /** What happened and what was done about it. */
  message: string;
}
