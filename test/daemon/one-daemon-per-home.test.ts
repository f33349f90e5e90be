/**
 * One daemon per tutti home, with real `tuttid` processes: two started 0, 50 or 500 ms
 * apart on one home end with exactly one daemon (the other exits at once with
 * TUTTI_ERR_DAEMON_ALREADY_RUNNING, having started nothing), and a daemon killed with
 * SIGKILL leaves a stale lock that does not block the next start.
 */
import { tempHomes, writeRelease, cleanUp } from '@tutti/test-kit';
import { readdirSync, readlinkSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { fetchAvailableConnectors } from '../../cli/src/daemon-client.js';
import { isTuttiError } from '@tutti/core';
import { openStore } from '@tutti/core/internal';
import {
  attachTuttid,
  launchTuttid,
  type ReadyLine,
  startTuttid,
  stopAll,
  waitForConnector,
} from '@tutti/test-kit/tuttid';

const homes = tempHomes('tuttid-lock-');

afterEach(async () => {
  await stopAll();
  await cleanUp();
  await homes.removeAll();
});

/** A home with one stdio connector installed, as a daemon would find it at start. */
async function homeWithConnector(): Promise<string> {
  const home = await homes.make();
  const store = await openStore(home);
  await store.install(await writeRelease({ key: 'solo', serverArgs: [] }));
  return home;
}

/** Pids of the processes whose working folder is a state folder of `home` (its upstreams). */
function upstreamsOf(home: string): number[] {
  const stateFolders = join(home, 'connector-data');
  return readdirSync('/proc').flatMap((name) => {
    if (!/^\d+$/.test(name)) return [];
    try {
      return readlinkSync(`/proc/${name}/cwd`).startsWith(stateFolders) ? [Number(name)] : [];
    } catch {
      return [];
    }
  });
}

async function daemonFilePid(home: string): Promise<number> {
  return JSON.parse(await readFile(join(home, 'run', 'daemon.json'), 'utf8')).pid;
}

describe('one daemon per home', () => {
  it.each([0, 50, 500])(
    'lets exactly one of two daemons started %i ms apart run, and the other exits at once',
    async (apartMs) => {
      const home = await homeWithConnector();
      const first = launchTuttid(home, ['--no-demo']);
      await sleep(apartMs);
      const second = launchTuttid(home, ['--no-demo']);
      const [a, b] = await Promise.all([first.ready, second.ready]);
      const outcomes = [
        { launched: first, ready: a },
        { launched: second, ready: b },
      ];
      const winners = outcomes.filter((o) => o.ready !== undefined);
      const losers = outcomes.filter((o) => o.ready === undefined);
      expect(winners).toHaveLength(1);
      expect(losers).toHaveLength(1);
      const winner = winners[0]!.ready as ReadyLine;
      const loser = losers[0]!.launched;
      const daemon = await attachTuttid(home, winners[0]!.launched, winner);
      expect((await loser.exited).code).toBe(1);
      expect(loser.stderr()).toContain('TUTTI_ERR_DAEMON_ALREADY_RUNNING');
      expect(loser.stderr()).toContain(`pid ${winner.pid}`);
      expect(loser.stdout()).toBe('');

      expect(await daemonFilePid(home)).toBe(winner.pid);
      const solo = await waitForConnector(daemon, 'solo');
      expect(upstreamsOf(home)).toEqual([solo.runtime.pid]);
    },
  );

  it('starts over a stale lock left by a daemon killed with SIGKILL', async () => {
    const home = await homeWithConnector();
    const first = await startTuttid(home, ['--no-demo']);
    await waitForConnector(first, 'solo');
    first.child.kill('SIGKILL');
    await first.exited;

    // The daemon file and the lock file still name the dead daemon: neither counts.
    expect(await daemonFilePid(home)).toBe(first.ready.pid);
    const error = await fetchAvailableConnectors(home).catch((e: unknown) => e);
    expect(isTuttiError(error, 'TUTTI_ERR_CLI_DAEMON_NOT_RUNNING')).toBe(true);

    const second = await startTuttid(home, ['--no-demo']);
    expect(second.ready.pid).not.toBe(first.ready.pid);
    expect(await daemonFilePid(home)).toBe(second.ready.pid);
    const solo = await waitForConnector(second, 'solo');
    expect(solo.runtime.toolCount).toBeGreaterThan(0);
  });
});
