import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isTuttiError, type TuttiError } from '../../errors/index.js';
import { cleanUp, copyHomeFixture, homeSnapshot, tempDir } from '@tutti/test-kit';
import { homeFormatPath, readHomeFormat, writeHomeFormat } from './format-file.js';
import { migrateHome } from './migrate-home.js';
import { HOME_FORMAT_VERSION, HOME_MIGRATIONS, type HomeMigration } from './migrations.js';

afterEach(cleanUp);

const FIRST_STEP = HOME_MIGRATIONS.slice(0, 1);

/**
 * A layout change of the kind a later release makes (each connector's credential files
 * in a folder of its own), written to be run again: each file is moved by one rename, and
 * a run moves what is still in the old folder. `cut` makes it throw as a daemon killed
 * there would stop: after that many files, or (`'after'`) once the step completed.
 */
function credentialsPerConnector(cut?: number | 'after'): HomeMigration {
  return {
    from: 2,
    to: 3,
    summary: "each connector's credential in connectors/<key>/",
    async migrate(home) {
      const old = join(home, 'credentials');
      const names = (await readdir(old).catch(() => [] as string[]))
        .filter((name) => /^[a-z0-9-]+\.(json|secret)$/.test(name))
        .sort();
      let moved = 0;
      for (const name of names) {
        const [key, kind] = name.split('.') as [string, string];
        const dir = join(home, 'connectors', key);
        await mkdir(dir, { recursive: true, mode: 0o700 });
        await rename(join(old, name), join(dir, `credential.${kind}`));
        moved += 1;
        if (moved === cut) throw new Error(`cut short after ${moved} of ${names.length} files`);
      }
      await rm(old, { recursive: true, force: true });
      if (cut === 'after') throw new Error('cut short before format.json was advanced');
    },
  };
}

/** A step that only notes that it ran. */
function noting(from: number, ran: string[]): HomeMigration {
  return {
    from,
    to: from + 1,
    summary: `step ${from}`,
    migrate: async () => {
      ran.push(`${from} -> ${from + 1}`);
    },
  };
}

async function failure(run: Promise<unknown>): Promise<Error> {
  return run.then(
    () => {
      throw new Error('expected the migration to fail');
    },
    (error: unknown) => error as Error,
  );
}

/** The credential files of `keyed` in the v1 fixture: name -> content. */
async function keyedCredential(home: string): Promise<Record<string, string>> {
  const dir = join(home, 'credentials');
  return {
    json: await readFile(join(dir, 'keyed.json'), 'utf8'),
    secret: await readFile(join(dir, 'keyed.secret'), 'utf8'),
  };
}

/** Checks `home` is in the layout of {@link credentialsPerConnector}, with `credential`. */
async function expectPerConnectorLayout(home: string, credential: Record<string, string>) {
  expect(await readHomeFormat(home)).toBe(3);
  expect(existsSync(join(home, 'credentials'))).toBe(false);
  const dir = join(home, 'connectors', 'keyed');
  expect((await readdir(dir)).sort()).toEqual(['credential.json', 'credential.secret']);
  for (const kind of ['json', 'secret']) {
    const file = join(dir, `credential.${kind}`);
    expect(await readFile(file, 'utf8')).toBe(credential[kind]);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
  }
}

describe('migrateHome', () => {
  it('stamps a new home with the current version and runs no step', async () => {
    const home = await tempDir();
    await mkdir(join(home, 'run'));
    const ran: string[] = [];
    expect(await migrateHome(home, { onStep: (step) => ran.push(step.summary) })).toEqual({
      from: HOME_FORMAT_VERSION,
      to: HOME_FORMAT_VERSION,
    });
    expect(ran).toEqual([]);
    expect(await readHomeFormat(home)).toBe(HOME_FORMAT_VERSION);
    expect((await readdir(home)).sort()).toEqual(['format.json', 'run']);
  });

  it('takes a home of the previous release, which has no format.json, for version 1 and migrates it to the current version', async () => {
    const home = await copyHomeFixture(1);
    const ran: number[] = [];
    expect(await migrateHome(home, { onStep: (step) => ran.push(step.from) })).toEqual({
      from: 1,
      to: HOME_FORMAT_VERSION,
    });
    expect(ran).toEqual(HOME_MIGRATIONS.map((step) => step.from));
    expect(await readHomeFormat(home)).toBe(HOME_FORMAT_VERSION);
  });

  it('adds format.json in its 1 -> 2 step and changes nothing else of the previous release home', async () => {
    const home = await copyHomeFixture(1);
    const before = await homeSnapshot(home);
    await migrateHome(home, { migrations: FIRST_STEP });
    const { 'format.json': format, ...rest } = await homeSnapshot(home);
    expect(rest).toEqual(before);
    expect(format).toMatch(/^644 /);
    expect(JSON.parse(await readFile(homeFormatPath(home), 'utf8'))).toEqual({ version: 2 });
  });

  it('leaves a home of the current version as it is and runs no step', async () => {
    const home = await copyHomeFixture(1);
    await migrateHome(home);
    const before = await homeSnapshot(home);
    const ran: string[] = [];
    expect(await migrateHome(home, { onStep: (step) => ran.push(step.summary) })).toEqual({
      from: HOME_FORMAT_VERSION,
      to: HOME_FORMAT_VERSION,
    });
    expect(ran).toEqual([]);
    expect(await homeSnapshot(home)).toEqual(before);
  });

  it('runs only the steps after the version the home records, in order', async () => {
    const home = await tempDir();
    await writeHomeFormat(home, 2);
    const ran: string[] = [];
    const migrations = [noting(1, ran), noting(2, ran), noting(3, ran)];
    expect(await migrateHome(home, { migrations })).toEqual({ from: 2, to: 4 });
    expect(ran).toEqual(['2 -> 3', '3 -> 4']);
    expect(await readHomeFormat(home)).toBe(4);
  });

  it('refuses a home of a later version than it knows, naming both versions, and changes nothing', async () => {
    const home = await copyHomeFixture(1);
    await writeHomeFormat(home, HOME_FORMAT_VERSION + 1);
    const before = await homeSnapshot(home);
    const ran: string[] = [];
    const error = await failure(migrateHome(home, { onStep: (step) => ran.push(step.summary) }));
    expect(isTuttiError(error, 'TUTTI_ERR_HOME_TOO_NEW')).toBe(true);
    expect(error.message).toBe(
      `The tutti home "${home}" has layout version ${HOME_FORMAT_VERSION + 1}, written by a newer tuttid; this tuttid knows versions up to ${HOME_FORMAT_VERSION} and changed nothing in it: start the newer tuttid on this home, or start this one with another --home.`,
    );
    expect(ran).toEqual([]);
    expect(await homeSnapshot(home)).toEqual(before);
  });

  it('refuses a damaged format.json and changes nothing', async () => {
    const home = await copyHomeFixture(1);
    await writeFile(homeFormatPath(home), '{"version":');
    const before = await homeSnapshot(home);
    const error = await failure(migrateHome(home));
    expect(isTuttiError(error, 'TUTTI_ERR_HOME_FORMAT_UNREADABLE')).toBe(true);
    expect(await homeSnapshot(home)).toEqual(before);
  });

  it('removes the temp file of a format.json write cut short, and keeps the version it had', async () => {
    const home = await tempDir();
    await writeHomeFormat(home, 2);
    // pid 99999999 is above every pid_max: the writer is dead.
    const stray = join(home, '.format.json.99999999.0123456789ab.tmp');
    await writeFile(stray, '{"version": 3');
    const ran: string[] = [];
    const migrations = [noting(1, ran), noting(2, ran)];
    expect(await migrateHome(home, { migrations })).toEqual({ from: 2, to: 3 });
    expect(existsSync(stray)).toBe(false);
    expect(ran).toEqual(['2 -> 3']);
  });

  it('ends in the new layout when a step is cut short midway and the next start runs it again', async () => {
    const home = await copyHomeFixture(1);
    const credential = await keyedCredential(home);

    const error = await failure(
      migrateHome(home, { migrations: [...FIRST_STEP, credentialsPerConnector(1)] }),
    );
    expect(isTuttiError(error, 'TUTTI_ERR_HOME_MIGRATION_FAILED')).toBe(true);
    expect((error as TuttiError).details).toEqual({
      home,
      from: 2,
      to: 3,
      reason: 'cut short after 1 of 2 files',
    });
    // The 1 -> 2 step completed and was recorded; 2 -> 3 was left half done.
    expect(await readHomeFormat(home)).toBe(2);
    expect(await readdir(join(home, 'credentials'))).toEqual(['keyed.secret']);
    expect(await readdir(join(home, 'connectors', 'keyed'))).toEqual(['credential.json']);

    const ran: string[] = [];
    expect(
      await migrateHome(home, {
        migrations: [...FIRST_STEP, credentialsPerConnector()],
        onStep: (step) => ran.push(`${step.from} -> ${step.to}`),
      }),
    ).toEqual({ from: 2, to: 3 });
    expect(ran).toEqual(['2 -> 3']);
    await expectPerConnectorLayout(home, credential);
  });

  it('ends in the new layout when the daemon died after a step completed but before format.json was advanced', async () => {
    const home = await copyHomeFixture(1);
    const credential = await keyedCredential(home);
    const error = await failure(
      migrateHome(home, { migrations: [...FIRST_STEP, credentialsPerConnector('after')] }),
    );
    expect(isTuttiError(error, 'TUTTI_ERR_HOME_MIGRATION_FAILED')).toBe(true);
    expect(await readHomeFormat(home)).toBe(2);

    await migrateHome(home, { migrations: [...FIRST_STEP, credentialsPerConnector()] });
    await expectPerConnectorLayout(home, credential);
  });
});
