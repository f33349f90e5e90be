/**
 * Brings a tutti home to the layout this daemon uses, before anything else reads it. The
 * daemon calls {@link migrateHome} right after it took the home's lock, so no other
 * daemon changes the home meanwhile. Each step runs and then the format file is advanced
 * to the step's `to` with an atomic write: a daemon killed at any point leaves the file at
 * the last step that completed, and the next start runs the step it was in again (steps
 * are written to be run again, see {@link HomeMigration.migrate}). A home of a newer
 * layout than this daemon knows is refused and left as it is.
 */
import { readdir } from 'node:fs/promises';
import { TuttiError } from '../../errors/index.js';
import { removeStrayTempFiles } from '../atomic-write.js';
import { readHomeFormat, UNVERSIONED_HOME, writeHomeFormat } from './format-file.js';
import { HOME_MIGRATIONS, type HomeMigration, latestHomeFormat } from './migrations.js';

/** Options of {@link migrateHome}. */
export interface MigrateHomeOptions {
  /** The steps to run (default: {@link HOME_MIGRATIONS}; tests pass others). */
  readonly migrations?: readonly HomeMigration[];
  /** Told before each step starts. */
  readonly onStep?: (step: HomeMigration) => void;
}

/** What {@link migrateHome} found and left. */
export interface HomeMigrated {
  /** The layout version the home had (a new, empty home counts as the current one). */
  readonly from: number;
  /** The layout version it has now. */
  readonly to: number;
}

/** True when `home` holds nothing but the lock folder `run/`: a home never used. */
async function holdsNothing(home: string): Promise<boolean> {
  return (await readdir(home)).every((name) => name === 'run');
}

/**
 * Migrates `home` to the latest layout of the migrations, step by step; a new home is
 * stamped with that layout at once. Throws TUTTI_ERR_HOME_TOO_NEW (nothing changed) for
 * a home of a later layout, TUTTI_ERR_HOME_FORMAT_UNREADABLE for a damaged format file,
 * and TUTTI_ERR_HOME_MIGRATION_FAILED when a step fails (the format file then still
 * names the version before that step, and the next run takes it up again).
 * @example const { from, to } = await migrateHome(home); // { from: 1, to: 2 } on a home of 0.1
 */
export async function migrateHome(
  home: string,
  options: MigrateHomeOptions = {},
): Promise<HomeMigrated> {
  const migrations = options.migrations ?? HOME_MIGRATIONS;
  const latest = latestHomeFormat(migrations);
  const recorded = await readHomeFormat(home);
  const from = recorded ?? UNVERSIONED_HOME;
  if (from > latest) {
    throw new TuttiError('TUTTI_ERR_HOME_TOO_NEW', { home, version: from, supported: latest });
  }
  await removeStrayTempFiles(home);
  if (recorded === undefined && (await holdsNothing(home))) {
    await writeHomeFormat(home, latest);
    return { from: latest, to: latest };
  }
  for (const step of migrations.slice(from - UNVERSIONED_HOME)) {
    options.onStep?.(step);
    try {
      await step.migrate(home);
      await writeHomeFormat(home, step.to);
    } catch (error) {
      const reason = error instanceof Error ? error.message : String(error);
      throw new TuttiError(
        'TUTTI_ERR_HOME_MIGRATION_FAILED',
        { home, from: step.from, to: step.to, reason },
        { cause: error },
      );
    }
  }
  return { from, to: latest };
}
