/**
 * The README's quick start, as a newcomer runs it: a clean clone, `npm ci && npm start`
 * with a fresh HOME and TUTTI_HOME set, the demo connectors' tools visible, and the
 * README's commands for a second terminal run exactly as written. Slow by nature (a full
 * install), so it runs once, in its own file.
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
const temps: string[] = [];
let daemon: ReturnType<typeof spawn> | undefined;

afterAll(async () => {
  if (daemon && daemon.exitCode === null && daemon.pid) {
    const gone = new Promise((resolve) => daemon!.once('exit', resolve));
    process.kill(-daemon.pid, 'SIGTERM');
    await gone;
  }
  await Promise.all(temps.map((dir) => rm(dir, { recursive: true, force: true })));
});

/** The environment of a newcomer: a fresh HOME, npm's cache kept so no download repeats. */
function newcomerEnv(home: string): NodeJS.ProcessEnv {
  const cache = execFileSync('npm', ['config', 'get', 'cache'], { encoding: 'utf8' }).trim();
  const env: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: home, npm_config_cache: cache };
  return env;
}

describe('README quick start', () => {
  it('installs from a clean clone and serves the demo tools with `npm ci && npm start`', async () => {
    const work = await mkdtemp(join(tmpdir(), 'tutti-quick-start-'));
    temps.push(work);
    const clone = join(work, 'tutti-connector');
    const home = join(work, 'home');
    // A newcomer who keeps tutti's home elsewhere: every command of the README must follow.
    const tuttiHome = join(work, 'tutti home');
    execFileSync('git', ['clone', '--quiet', ROOT, clone]);
    const readme = await readFile(join(clone, 'README.md'), 'utf8');
    expect(readme).toContain('npm ci && npm start');
    const env = { ...newcomerEnv(home), TUTTI_HOME: tuttiHome };
    execFileSync('npm', ['ci', '--prefer-offline', '--no-audit', '--no-fund'], {
      cwd: clone,
      env,
      stdio: 'ignore',
    });

    daemon = spawn('npm', ['start'], { cwd: clone, env, detached: true, stdio: 'pipe' });
    // The banner comes once the servers listen; the connectors' states once they settled.
    const banner = await new Promise<string>((resolve, reject) => {
      let text = '';
      let settled = 0;
      createInterface({ input: daemon!.stdout! }).on('line', (line) => {
        text += `${line}\n`;
        if (line.startsWith('connectors settled')) settled = 1;
        else if (settled && line.startsWith('  connector ') && ++settled > 2) resolve(text);
      });
      daemon!.once('exit', (code) => reject(new Error(`npm start exited ${code}:\n${text}`)));
    });
    expect(banner).toContain('tuttid is ready');
    expect(banner).toContain(`home        ${tuttiHome}`);
    expect(banner).toContain(`CLI shims   ${join(tuttiHome, 'bin')}`);
    expect(banner).toMatch(/discover {4}.*connector available/);
    const after = banner.slice(banner.indexOf('connectors settled'));
    expect(after).toMatch(/notes: ready, 3 MCP tools as notes_\*/);
    expect(after).toMatch(/hello: ready, CLI tutti-connector-hello/);

    const listed = execFileSync(
      'node',
      [join(clone, 'cli/bin/tutti.js'), 'connector', 'available', '--json'],
      {
        cwd: clone,
        env,
        encoding: 'utf8',
      },
    );
    const keys = (JSON.parse(listed).connectors as { key: string }[]).map((c) => c.key);
    expect(keys).toEqual(['hello', 'notes']);

    // The README's "in another terminal" commands, exactly as written.
    const block = readme.slice(readme.indexOf('In another terminal'));
    const commands = /```sh\n([\s\S]*?)```/
      .exec(block)![1]!
      .trim()
      .split('\n')
      .map((line) => line.replace(/\s+#.*$/, ''));
    expect(commands).toHaveLength(2);
    const [discover, greet] = commands.map((command) =>
      execFileSync('sh', ['-c', command], { cwd: clone, env, encoding: 'utf8' }),
    );
    expect(discover).toMatch(/^Hello \(hello\)\s+CLI, Skills\s+ready\s+tutti-connector-hello/m);
    expect(discover).toMatch(/^Notes \(notes\)\s+MCP tools notes_\*, Skills\s+ready/m);
    expect(greet).toBe('Hello, World!\n');
  }, 600_000);
});
