/**
 * The layout versions of a tutti home and the migration from each to the next, in order.
 * A change of the home's layout adds one step here, `from: N, to: N + 1`, and a row to
 * the version table of docs/home-format.md; the current version is the last step's `to`.
 */
import { UNVERSIONED_HOME } from './format-file.js';

/** One step of the home's layout, from one version to the next. */
export interface HomeMigration {
  readonly from: number;
  /** Always `from + 1`. */
  readonly to: number;
  /** What the step changes, in one line (the same words as docs/home-format.md). */
  readonly summary: string;
  /**
   * Brings the home's files from layout `from` to `to`. It may be cut short at any point
   * (a crash, a kill) and is then run again on what it left, and it runs again after it
   * completed when the daemon died before the format file was advanced: it must end in
   * the `to` layout from either. It must also accept a home that lacks any part of the
   * `from` layout (a folder never created), and it never writes the format file: the
   * runner does, once the step returned. What it throws must not quote a secret: its
   * message becomes the reason of TUTTI_ERR_HOME_MIGRATION_FAILED.
   */
  migrate(home: string): Promise<void>;
}

/** Every migration, oldest first. */
export const HOME_MIGRATIONS: readonly HomeMigration[] = Object.freeze([
  {
    from: 1,
    to: 2,
    summary: 'format.json names the layout version; nothing else changed',
    // Version 2 is version 1 plus format.json, which the runner writes after this step.
    migrate: async () => {},
  },
]);

/**
 * The version `migrations` end at; throws when they are not one chain of single steps
 * from version 1 (a mistake in this file, caught by its test).
 */
export function latestHomeFormat(migrations: readonly HomeMigration[]): number {
  let version = UNVERSIONED_HOME;
  for (const step of migrations) {
    if (step.from !== version || step.to !== version + 1) {
      throw new Error(
        `home migration ${step.from} -> ${step.to} does not follow version ${version}`,
      );
    }
    version = step.to;
  }
  return version;
}

/** The layout version this daemon writes and reads. */
export const HOME_FORMAT_VERSION = latestHomeFormat(HOME_MIGRATIONS);
