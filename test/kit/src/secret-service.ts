/**
 * A private Secret Service for tests of the OS keychain store: a session bus of its own
 * (`dbus-daemon --session` on a socket in the test's folder) and `gnome-keyring-daemon`
 * serving `org.freedesktop.secrets` on it, its keyring files under the folder (HOME and
 * XDG_DATA_HOME point there) and unlocked with a fixed password. Nothing of the user's
 * own session is touched. {@link SecretService.stop} ends both daemons and reaps them.
 * dbus-daemon prints `Failed to set fd limit` on stderr here: harmless.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { WAIT_BOUND_MS } from './waits.js';

/** The programs a Secret Service needs, and how to install them (Debian). */
const PROGRAMS = ['dbus-daemon', 'dbus-send', 'gnome-keyring-daemon'] as const;
const INSTALL = 'apt-get install -y --no-install-recommends dbus-daemon dbus-bin gnome-keyring';

/** A running private Secret Service. */
export interface SecretService {
  /**
   * The environment that reaches it: DBUS_SESSION_BUS_ADDRESS, and HOME, XDG_DATA_HOME
   * and XDG_RUNTIME_DIR in the service's folder (merge it into a child's environment, or
   * set DBUS_SESSION_BUS_ADDRESS in `process.env` around in-process keyring calls).
   */
  readonly env: Readonly<Record<string, string>>;
  /** The dbus-daemon and gnome-keyring-daemon pids (for a test that checks they ended). */
  readonly pids: readonly number[];
  /** Ends both daemons and waits until each is reaped; idempotent. */
  stop(): Promise<void>;
}

function onPath(name: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, name), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

async function end(child: ChildProcess): Promise<void> {
  const done = exited(child);
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await done;
  clearTimeout(timer);
}

/** Reads the bus address dbus-daemon prints on its first stdout line. */
function busAddress(child: ChildProcess, stderr: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => fail('it printed no address in time'), WAIT_BOUND_MS);
    function fail(why: string): void {
      clearTimeout(timer);
      reject(new Error(`dbus-daemon did not start: ${why}; stderr: ${stderr()}`));
    }
    child.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const newline = out.indexOf('\n');
      if (newline >= 0) {
        clearTimeout(timer);
        resolve(out.slice(0, newline).trim());
      }
    });
    child.once('exit', (code) => fail(`it exited with ${code}`));
  });
}

function secretsOwned(env: NodeJS.ProcessEnv): boolean {
  const answer = spawnSync(
    'dbus-send',
    [
      '--session',
      '--print-reply',
      '--dest=org.freedesktop.DBus',
      '/org/freedesktop/DBus',
      'org.freedesktop.DBus.NameHasOwner',
      'string:org.freedesktop.secrets',
    ],
    { env, encoding: 'utf8', timeout: 5_000 },
  );
  return /boolean true/.test(answer.stdout ?? '');
}

/**
 * Starts a private session bus and an unlocked gnome-keyring Secret Service on it, with
 * every file under `dir` (an empty temp folder the caller removes after {@link
 * SecretService.stop}); resolves once `org.freedesktop.secrets` is owned on the bus.
 * Throws, naming the apt-get line, when dbus-daemon or gnome-keyring is not installed.
 */
export async function startSecretService(dir: string): Promise<SecretService> {
  const missing = PROGRAMS.filter((name) => !onPath(name));
  if (missing.length > 0) {
    throw new Error(`${missing.join(', ')} not found on PATH: install them with \`${INSTALL}\``);
  }
  const home = join(dir, 'home');
  const runtime = join(dir, 'run');
  await mkdir(join(home, '.local', 'share'), { recursive: true, mode: 0o700 });
  await mkdir(runtime, { recursive: true, mode: 0o700 });
  const base = {
    HOME: home,
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_RUNTIME_DIR: runtime,
  };
  const bus = spawn(
    'dbus-daemon',
    [
      '--session',
      '--nofork',
      '--nopidfile',
      '--print-address=1',
      `--address=unix:path=${join(dir, 'bus')}`,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...base } },
  );
  let busErr = '';
  bus.stderr!.on('data', (chunk: Buffer) => {
    busErr += chunk.toString();
  });
  const children: ChildProcess[] = [bus];
  const stop = async (): Promise<void> => {
    // The keyring first: it exits with its bus anyway, but is reaped here either way.
    for (const child of children.slice().reverse()) await end(child);
  };
  try {
    const address = await busAddress(bus, () => busErr);
    const env = { ...base, DBUS_SESSION_BUS_ADDRESS: address };
    const keyring = spawn(
      'gnome-keyring-daemon',
      ['--foreground', '--unlock', '--components=secrets', `--control-directory=${runtime}`],
      { stdio: ['pipe', 'ignore', 'pipe'], env: { ...process.env, ...env } },
    );
    children.push(keyring);
    let keyringErr = '';
    keyring.stderr!.on('data', (chunk: Buffer) => {
      keyringErr += chunk.toString();
    });
    // The login keyring's password, read from stdin by --unlock.
    keyring.stdin!.end('tutti-test-keyring');
    const deadline = Date.now() + WAIT_BOUND_MS;
    while (!secretsOwned({ ...process.env, ...env })) {
      if (keyring.exitCode !== null || Date.now() > deadline) {
        throw new Error(
          `gnome-keyring-daemon did not serve org.freedesktop.secrets: ${keyringErr}`,
        );
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    let stopped: Promise<void> | undefined;
    return {
      env,
      pids: children.map((child) => child.pid!),
      stop: () => {
        stopped ??= stop();
        return stopped;
      },
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** A Secret Service this process's own keyring calls (and the daemons it starts) use. */
export interface JoinedSecretService {
  readonly service: SecretService;
  /** Stops the service, removes its folder and puts the process's bus address back. */
  leave(): Promise<void>;
}

/**
 * Starts a Secret Service in a folder of its own (not a kit temp folder: those go after
 * each test, the service lives for the file) and points this process's
 * DBUS_SESSION_BUS_ADDRESS at it. For a test file's `beforeAll`, with `leave` in `afterAll`.
 */
export async function joinSecretService(): Promise<JoinedSecretService> {
  const dir = await mkdtemp(join(tmpdir(), 'tutti-secret-service-'));
  const service = await startSecretService(dir);
  const saved = process.env.DBUS_SESSION_BUS_ADDRESS;
  process.env.DBUS_SESSION_BUS_ADDRESS = service.env.DBUS_SESSION_BUS_ADDRESS;
  return {
    service,
    async leave() {
      if (saved === undefined) delete process.env.DBUS_SESSION_BUS_ADDRESS;
      else process.env.DBUS_SESSION_BUS_ADDRESS = saved;
      await service.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
