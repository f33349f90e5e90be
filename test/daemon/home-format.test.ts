/**
 * The home's layout version with real `tuttid` processes: a home made by an earlier
 * release's own daemon (every fixture under the kit's fixtures/homes/) is migrated at start and
 * serves what that daemon served, its credential included; a new home is stamped with the
 * current version; a home of a later version, or with a damaged format.json, is refused:
 * tuttid prints the error, exits 1 and changes nothing in the home.
 */
import { execFile } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { readFile, rename, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { HOME_FORMAT_VERSION } from '@tutti/core/internal';
import {
  cleanUp,
  copyHomeFixture,
  homeSnapshot,
  servedByHomeFixture,
  FIXTURES,
  tempHomes,
  type McpBinding,
  mcpRequest,
} from '@tutti/test-kit';
import { launchTuttid, startTuttid, stopAll, type TuttidProcess } from '@tutti/test-kit/tuttid';

const homes = tempHomes('tuttid-format-');
const run = promisify(execFile);

afterEach(async () => {
  await stopAll();
  await cleanUp();
  await homes.removeAll();
});

/** The layout versions of the home fixtures kept in the repository. */
const FIXTURE_VERSIONS = readdirSync(`${FIXTURES}homes/`).flatMap((name) =>
  /^v\d+$/.test(name) ? [Number(name.slice(1))] : [],
);

const formatOf = async (home: string) =>
  JSON.parse(await readFile(join(home, 'format.json'), 'utf8')) as unknown;

/** Names of the tools the connector server lists to a new prepare-only session. */
async function toolNames(daemon: TuttidProcess): Promise<string[]> {
  const { body } = await daemon.control('POST', '/v1/sessions', {
    workspaceId: 'ws',
    agentSessionId: 'format-1',
    cwd: tmpdir(),
  });
  const [binding] = body.runtime.mcpServers as McpBinding[];
  const { result } = (await mcpRequest(binding!, 'tools/list')).body as {
    result: { tools: { name: string }[] };
  };
  return result.tools.map((tool) => tool.name).sort();
}

/** Everything in the home but `run/` (the lock a refused daemon still takes). */
async function withoutRun(home: string): Promise<Record<string, string>> {
  const snapshot = await homeSnapshot(home);
  return Object.fromEntries(Object.entries(snapshot).filter(([path]) => !path.startsWith('run/')));
}

/** Launches tuttid on `home` and resolves once it exited and its output closed. */
async function refusedStart(home: string) {
  const launched = launchTuttid(home);
  const closed = new Promise((resolve) => launched.child.once('close', resolve));
  const exit = await launched.exited;
  await closed;
  return { exit, ready: await launched.ready, stderr: launched.stderr() };
}

describe('the layout version of the home', () => {
  it.each(FIXTURE_VERSIONS)(
    'migrates the home of layout %i an earlier release made and serves what that release served',
    async (version) => {
      const home = await copyHomeFixture(version);
      const served = await servedByHomeFixture(version);
      const daemon = await startTuttid(home, ['--no-demo']);
      expect(await formatOf(home)).toEqual({ version: HOME_FORMAT_VERSION });
      expect((await daemon.settled)?.connectors).toEqual(served.connectors);
      expect(await toolNames(daemon)).toEqual(served.tools);

      const { body } = await daemon.control('GET', '/v1/connectors');
      const keyed = (body.connectors as { key: string; authReady: boolean }[]).find(
        (connector) => connector.key === 'keyed',
      );
      expect(keyed).toMatchObject({ authReady: true, runtime: { state: 'ready' } });
      for (const file of ['keyed.json', 'keyed.secret']) {
        expect((await stat(join(home, 'credentials', file))).mode & 0o777).toBe(0o600);
      }

      // The shims were rewritten for this home, and the stored credential reaches the CLI.
      const shim = join(home, 'bin', 'tutti-connector-keyed');
      expect(await readFile(shim, 'utf8')).toContain(
        `'${join(home, 'credentials', 'keyed.secret')}'`,
      );
      const keyedRun = await run(shim, ['hi'], { env: { PATH: process.env.PATH ?? '' } });
      expect(JSON.parse(keyedRun.stdout)).toEqual({
        keyPresent: true,
        argv: ['--from-tutti', 'hi'],
      });
      const hello = await run(join(home, 'bin', 'tutti-connector-hello'), ['greet', 'Ada'], {
        env: { PATH: process.env.PATH ?? '' },
      });
      expect(hello.stdout).toBe('Hello, Ada!\n');
    },
  );

  it('stamps a new home with the current layout version', async () => {
    const home = await homes.make();
    await startTuttid(home, ['--no-demo'], { until: 'ready' });
    expect(await formatOf(home)).toEqual({ version: HOME_FORMAT_VERSION });
  });

  it('refuses a home of a later layout: tuttid prints TUTTI_ERR_HOME_TOO_NEW with both versions and what to do, exits 1 and changes nothing', async () => {
    // A layout this daemon does not know: its state moved. Had anything opened the store
    // before the refusal, a new empty state/ would show in the snapshot.
    const home = await copyHomeFixture(1);
    await rename(join(home, 'state'), join(home, 'store-state'));
    const later = HOME_FORMAT_VERSION + 1;
    await writeFile(join(home, 'format.json'), `{"version": ${later}}\n`);
    const before = await withoutRun(home);

    const { exit, ready, stderr } = await refusedStart(home);
    expect(exit).toEqual({ code: 1, signal: null });
    expect(ready).toBeUndefined();
    expect(stderr).toContain(
      `tuttid: TUTTI_ERR_HOME_TOO_NEW: The tutti home "${home}" has layout version ${later}, written by a newer tuttid; this tuttid knows versions up to ${HOME_FORMAT_VERSION} and changed nothing in it: start the newer tuttid on this home, or start this one with another --home.\n`,
    );
    expect(await withoutRun(home)).toEqual(before);
  });

  it('refuses a home whose format.json is damaged, naming the file, and changes nothing', async () => {
    const home = await copyHomeFixture(1);
    await writeFile(join(home, 'format.json'), '{"version": ');
    const before = await withoutRun(home);

    const { exit, stderr } = await refusedStart(home);
    expect(exit).toEqual({ code: 1, signal: null });
    expect(stderr).toContain(
      `tuttid: TUTTI_ERR_HOME_FORMAT_UNREADABLE: The format file "${join(home, 'format.json')}" of the tutti home cannot be read (not valid JSON)`,
    );
    expect(await withoutRun(home)).toEqual(before);
  });
});
