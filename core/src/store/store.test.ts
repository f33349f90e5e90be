import { spawnSync } from 'node:child_process';
import { mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isTuttiError, type TuttiError } from '../errors/index.js';
import { openStore } from './store.js';
import { cleanUp, CONNECTOR_FIXTURES as FIXTURES, fixtureCopy, tempDir } from '@tutti/test-kit';

afterEach(cleanUp);

describe('connector store: install', () => {
  it('copies the release into releases/<digest> and records revision 1', async () => {
    const home = await tempDir();
    const store = await openStore(home);
    const result = await store.install(join(FIXTURES, 'echo'));
    expect(result).toMatchObject({
      key: 'echo',
      revision: 1,
      changed: true,
      skills: ['echo-basics'],
    });
    expect(result.releaseDir).toBe(join(home, 'releases', result.digest));
    expect(result.digest).toMatch(/^[0-9a-f]{64}$/);
    expect(result.paths.mcp).toEqual({
      transport: 'stdio',
      command: 'node',
      args: [join(result.releaseDir, 'server.mjs')],
      env: {},
    });
    expect(result.skillsDir).toBe(join(result.releaseDir, 'skills'));
    expect(await readFile(join(result.releaseDir, 'server.mjs'), 'utf8')).toBe(
      await readFile(join(FIXTURES, 'echo/server.mjs'), 'utf8'),
    );
    const state = JSON.parse(await readFile(join(home, 'state/installed.json'), 'utf8'));
    expect(state).toMatchObject({ version: 1, revisions: { echo: 1 } });
    expect(state.connectors.echo.digest).toBe(result.digest);
    expect(store.get('echo')?.revision).toBe(1);
  });

  it('treats installing the same content again as no change: same digest, same revision', async () => {
    const store = await openStore(await tempDir());
    const first = await store.install(join(FIXTURES, 'echo'));
    const again = await store.install(await fixtureCopy('echo'));
    expect(again).toMatchObject({ changed: false, digest: first.digest, revision: 1 });
    expect(store.revision('echo')).toBe(1);
  });

  it('upgrades to new content with a new revision and keeps the old release until pruned', async () => {
    const home = await tempDir();
    const store = await openStore(home);
    const first = await store.install(join(FIXTURES, 'echo'));
    const changed = await fixtureCopy('echo', { 'server.mjs': '// v2\n' });
    const second = await store.install(changed);
    expect(second).toMatchObject({ changed: true, revision: 2, previousDigest: first.digest });
    expect(second.digest).not.toBe(first.digest);
    expect(store.get('echo')?.digest).toBe(second.digest);
    expect((await readdir(join(home, 'releases'))).sort()).toEqual(
      [first.digest, second.digest].sort(),
    );
    expect(await store.pruneReleases()).toEqual([first.digest]);
    expect(await readdir(join(home, 'releases'))).toEqual([second.digest]);
  });

  it('lists installed connectors sorted by key', async () => {
    const store = await openStore(await tempDir());
    await store.install(join(FIXTURES, 'remote-docs'));
    await store.install(join(FIXTURES, 'echo'));
    await store.install(join(FIXTURES, 'keyed'));
    expect(store.installed().map((c) => c.key)).toEqual(['echo', 'keyed', 'remote-docs']);
  });

  it('refuses an invalid release and writes nothing', async () => {
    const home = await tempDir();
    const store = await openStore(home);
    const error = await store.install(join(FIXTURES, 'invalid/missing-command')).catch((e) => e);
    expect(isTuttiError(error, 'TUTTI_ERR_MANIFEST_INVALID')).toBe(true);
    expect((error as Error).message).toContain(join(FIXTURES, 'invalid/missing-command'));
    expect(await readdir(join(home, 'releases'))).toEqual([]);
    expect(await readdir(join(home, 'state'))).toEqual([]);
  });

  it('refuses a release with a symbolic link that escapes it, leaving no staging folder', async () => {
    const home = await tempDir();
    const store = await openStore(home);
    const release = await fixtureCopy('echo');
    await symlink('/etc/passwd', join(release, 'passwd'));
    const error = await store.install(release).catch((e) => e);
    expect(isTuttiError(error, 'TUTTI_ERR_STORE_UNSAFE_RELEASE')).toBe(true);
    expect((error as Error).message).toContain('"passwd" is a symbolic link that points outside');
    expect(await readdir(join(home, 'releases'))).toEqual([]);
    expect(store.get('echo')).toBeUndefined();
  });

  it('serializes concurrent writes: each change gets its own revision', async () => {
    const store = await openStore(await tempDir());
    await store.install(join(FIXTURES, 'echo'));
    const revisions = await Promise.all(
      Array.from({ length: 8 }, () => store.nextRevision('echo')),
    );
    expect([...revisions].sort((a, b) => a - b)).toEqual([2, 3, 4, 5, 6, 7, 8, 9]);
    expect(store.revision('echo')).toBe(9);
  });
});

describe('connector store: uninstall and revisions', () => {
  it('takes a new revision on uninstall and never reuses revisions after a reinstall', async () => {
    const home = await tempDir();
    const store = await openStore(home);
    await store.install(join(FIXTURES, 'echo'));
    expect(await store.uninstall('echo')).toEqual({ key: 'echo', revision: 2, changed: true });
    expect(store.get('echo')).toBeUndefined();
    expect(await store.uninstall('echo')).toEqual({ key: 'echo', revision: 2, changed: false });
    expect((await store.install(join(FIXTURES, 'echo'))).revision).toBe(3);
  });

  it('keeps revisions monotonic across reopening the store', async () => {
    const home = await tempDir();
    const first = await openStore(home);
    await first.install(join(FIXTURES, 'echo'));
    await first.nextRevision('echo');
    await first.uninstall('echo');
    const second = await openStore(home);
    expect(second.revision('echo')).toBe(3);
    expect(second.get('echo')).toBeUndefined();
    expect((await second.install(join(FIXTURES, 'echo'))).revision).toBe(4);
    const third = await openStore(home);
    expect(third.get('echo')).toMatchObject({ revision: 4, key: 'echo' });
    expect(third.problems).toEqual([]);
  });

  it('rejects keys that are not connector keys', async () => {
    const store = await openStore(await tempDir());
    const error = await store.uninstall('../etc').catch((e) => e);
    expect(isTuttiError(error, 'TUTTI_ERR_REGISTRY_INVALID_KEY')).toBe(true);
  });
});

describe('connector store: damaged state', () => {
  it('ignores and removes a temp file a crashed write left behind', async () => {
    const home = await tempDir();
    await (await openStore(home)).install(join(FIXTURES, 'echo'));
    const stray = join(home, 'state', '.installed.json.4194999.abcdef012345.tmp');
    await writeFile(stray, '{"version":1,"conn');
    const store = await openStore(home);
    expect(store.get('echo')?.revision).toBe(1);
    expect(store.problems).toEqual([]);
    await expect(stat(stray)).rejects.toThrow();
  });

  it('removes the staging folder an install left when its process died', async () => {
    const home = await tempDir();
    await openStore(home);
    const dead = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']);
    const staging = join(home, 'releases', `.staging-${dead.stdout.toString()}-0123456789ab`);
    await mkdir(join(staging, 'bin'), { recursive: true });
    await writeFile(join(staging, 'bin/half-copied'), 'x');
    await openStore(home);
    expect(await readdir(join(home, 'releases'))).toEqual([]);
  });

  it('recovers a truncated installed.json from its last good copy and reports it', async () => {
    const home = await tempDir();
    const store = await openStore(home);
    await store.install(join(FIXTURES, 'echo'));
    await store.install(join(FIXTURES, 'keyed'));
    const file = join(home, 'state/installed.json');
    const text = await readFile(file, 'utf8');
    await writeFile(file, text.slice(0, text.length / 2));
    const told: TuttiError[] = [];
    const reopened = await openStore(home, { onProblem: (problem) => told.push(problem) });
    expect(reopened.installed().map((c) => c.key)).toEqual(['echo', 'keyed']);
    expect(told).toHaveLength(1);
    expect(reopened.problems).toEqual(told);
    expect(told[0]?.code).toBe('TUTTI_ERR_STORE_STATE_RESTORED');
    expect(told[0]?.message).toContain(file);
    expect(await readFile(file, 'utf8')).toBe(text);
  });

  it('fails to open with a clear error when the state and its copy are both damaged', async () => {
    const home = await tempDir();
    await (await openStore(home)).install(join(FIXTURES, 'echo'));
    await writeFile(join(home, 'state/installed.json'), '');
    await writeFile(join(home, 'state/installed.json.last-good'), '{');
    const error = await openStore(home).catch((e) => e);
    expect(isTuttiError(error, 'TUTTI_ERR_STORE_STATE_CORRUPT')).toBe(true);
    expect((error as Error).message).toContain(join(home, 'state/installed.json'));
  });

  it('reports an installed release that went missing and still loads the others', async () => {
    const home = await tempDir();
    const store = await openStore(home);
    const echo = await store.install(join(FIXTURES, 'echo'));
    await store.install(join(FIXTURES, 'keyed'));
    await rm(echo.releaseDir, { recursive: true });
    const reopened = await openStore(home);
    expect(reopened.installed().map((c) => c.key)).toEqual(['keyed']);
    expect(reopened.problems.map((p) => p.code)).toEqual(['TUTTI_ERR_STORE_RELEASE_MISSING']);
    expect(reopened.problems[0]?.message).toContain(
      'Connector "echo" is installed but its release',
    );
    expect((await reopened.install(join(FIXTURES, 'echo'))).revision).toBe(2);
  });
});
