/**
 * What `tuttid` writes as it runs, with real daemons: its log file (`<home>/logs/tuttid.log`,
 * 0600 in a 0700 folder, rotated at its size, no credential or session token in it, no line
 * per tool call at the default level), the human terminal (a repeated warning once, then
 * with its count; Node's own warnings as log lines, never raw) and a stop's `stopping` and
 * `stopped` lines (with `--json`, stdout keeps only its ready and settled lines).
 */
import { mkdir, readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openStore } from '@tutti/core/internal';
import { cleanUp, writeRelease, tempHomes, type McpBinding, mcpRequest } from '@tutti/test-kit';
import {
  type LaunchedTuttid,
  launchTuttid,
  startTuttid,
  stopAll,
  type TuttidProcess,
  waitForConnector,
} from '@tutti/test-kit/tuttid';

const homes = tempHomes('tuttid-logging-');

afterEach(async () => {
  await stopAll();
  await cleanUp();
  await homes.removeAll();
});

const mode = async (path: string) => (await stat(path)).mode & 0o777;

/** The JSON lines of the log file and of its rotated files, oldest first. */
async function logLines(home: string): Promise<Record<string, unknown>[]> {
  const logs = join(home, 'logs');
  const names = (await readdir(logs)).sort((a, b) => b.localeCompare(a, 'en', { numeric: true }));
  const texts = await Promise.all(names.map((name) => readFile(join(logs, name), 'utf8')));
  return texts
    .join('')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** Resolves once `read()` holds `text` (rejects when the process ended first). */
function printed(launched: LaunchedTuttid, read: () => string, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      if (read().includes(text)) {
        clearInterval(timer);
        resolve(read());
      }
    };
    const timer = setInterval(check, 20);
    void launched.exited.then(() => {
      clearInterval(timer);
      if (read().includes(text)) resolve(read());
      else reject(new Error(`tuttid exited before printing "${text}":\n${launched.stderr()}`));
    });
  });
}

/** A session binding from the prepare-only sessions API. */
async function bindingOf(daemon: TuttidProcess) {
  const { body } = await daemon.control('POST', '/v1/sessions', {
    workspaceId: 'ws',
    cwd: tmpdir(),
  });
  return body.runtime.mcpServers[0] as { url: string; headers: Record<string, string> };
}

async function rpc(binding: McpBinding, method: string, params: unknown) {
  return (await mcpRequest(binding, method, params)).body;
}

describe("tuttid's log file", () => {
  it('is <home>/logs/tuttid.log, 0600 in a 0700 folder, with JSON lines at info by default', async () => {
    const home = await homes.make();
    const daemon = await startTuttid(home);
    expect((await daemon.settled)?.connectors.map((c) => c.key)).toEqual(['hello', 'notes']);
    expect(await mode(join(home, 'logs'))).toBe(0o700);
    expect(await mode(join(home, 'logs', 'tuttid.log'))).toBe(0o600);
    const lines = await logLines(home);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 30, connector: 'notes', msg: 'connector started' }),
    );
    expect(lines.every((line) => typeof line.time === 'number')).toBe(true);
    expect(lines.some((line) => (line.level as number) < 30)).toBe(false);
  });

  it('rotates at --log-file-size and keeps --log-file-count rotated files, all 0600', async () => {
    const home = await homes.make();
    const daemon = await startTuttid(home, [
      '--no-demo',
      '--log-file-size',
      '1024',
      '--log-file-count',
      '2',
    ]);
    // Each request from a foreign Origin is refused with one warning line.
    for (let i = 0; i < 30; i++) {
      const refused = await fetch(daemon.ready.mcpUrl, {
        method: 'POST',
        headers: { origin: 'http://example.com', 'content-type': 'application/json' },
        body: '{}',
      });
      expect(refused.status).toBe(403);
    }
    await expect
      .poll(async () => (await readdir(join(home, 'logs'))).sort())
      .toEqual(['tuttid.log', 'tuttid.log.1', 'tuttid.log.2']);
    for (const name of await readdir(join(home, 'logs'))) {
      const path = join(home, 'logs', name);
      expect(await mode(path)).toBe(0o600);
      expect((await stat(path)).size).toBeLessThanOrEqual(1024);
    }
    const refusals = (await logLines(home)).filter((line) => line.msg === 'request refused');
    expect(refusals.length).toBeGreaterThan(0);
    expect(refusals.length).toBeLessThan(30);
  });

  it('holds no credential and no token, even at --log-level trace', async () => {
    const home = await homes.make();
    const secret = 'keyed-secret-value-0123456789';
    const daemon = await startTuttid(home, ['--no-demo', '--log-level', 'trace']);
    const keyed = await writeRelease({
      key: 'keyed',
      serverArgs: ['--expect-env', `KEYED_TOKEN=${secret}`],
      apiKeyEnv: 'KEYED_TOKEN',
    });
    await daemon.control('POST', '/v1/connectors/install', { path: keyed });
    // A wrong key first: its server refuses it and exits; then the right one.
    const wrong = await daemon.control('PUT', '/v1/connectors/keyed/credentials', {
      secret: 'wrong-secret-value-0123456789',
    });
    expect(wrong.body.runtime.state).not.toBe('ready');
    await daemon.control('PUT', '/v1/connectors/keyed/credentials', { secret });
    await waitForConnector(daemon, 'keyed');
    const binding = await bindingOf(daemon);
    const token = binding.headers.Authorization!.slice('Bearer '.length);
    expect((await rpc(binding, 'tools/list', {})).result.tools.length).toBeGreaterThan(0);
    const call = await rpc(binding, 'tools/call', {
      name: 'keyed_echo',
      arguments: { text: 'hi' },
    });
    expect(call.result.isError).toBeFalsy();
    await rpc(binding, 'tools/call', { name: 'keyed_no_such_tool', arguments: {} });
    await daemon.control('DELETE', '/v1/connectors/keyed/credentials');
    daemon.child.kill('SIGTERM');
    await daemon.exited;

    const text = JSON.stringify(await logLines(home));
    expect(text.length).toBeGreaterThan(1000);
    for (const value of [secret, 'wrong-secret-value-0123456789', token, daemon.controlToken]) {
      expect(text).not.toContain(value);
    }
  });

  it('gets no line per tool call at the default level', async () => {
    const home = await homes.make();
    const daemon = await startTuttid(home, ['--no-demo']);
    await daemon.control('POST', '/v1/connectors/install', {
      path: await writeRelease({ key: 'calls', serverArgs: [] }),
    });
    const binding = await bindingOf(daemon);
    await rpc(binding, 'tools/list', {});
    const before = (await logLines(home)).length;
    for (let i = 0; i < 25; i++) {
      const call = await rpc(binding, 'tools/call', {
        name: 'calls_echo',
        arguments: { text: `${i}` },
      });
      expect(call.result.isError).toBeFalsy();
    }
    expect((await logLines(home)).length).toBe(before);
  });
});

describe("tuttid's terminal", () => {
  it('shows a warning that keeps coming once, then with its count, and never a raw JSON line', async () => {
    const home = await homes.make();
    const store = await openStore(home);
    // Its server exits 2 at every start: the daemon retries it and warns each time.
    await store.install(await writeRelease({ key: 'broken', serverArgs: ['--expect-env', 'X=1'] }));
    const launched = launchTuttid(home, ['--no-demo'], { json: false });
    const line = 'warning connector broken: upstream ended (exit code 2)';
    const stderr = await printed(launched, launched.stderr, `${line} (repeated 2 times)`);
    const lines = stderr.split('\n').filter((text) => text.includes(line));
    expect(lines[0]).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d ${line.replace(/[()]/g, '\\$&')}$`));
    expect(lines[1]).toMatch(/ \(repeated 2 times\)$/);
    expect(stderr).not.toContain('{"level"');
    launched.child.kill('SIGTERM');
    await launched.exited;
    // The file has every one of them.
    const ended = (await logLines(home)).filter((entry) => entry.msg === 'upstream ended');
    expect(ended.length).toBeGreaterThanOrEqual(2);
  });

  it("logs Node's process warnings (an SDK's emitWarning) instead of printing them raw", async () => {
    const home = await homes.make();
    await mkdir(join(home, 'plugins'), { recursive: true });
    await writeFile(
      join(home, 'plugins', 'warning-plugin.mjs'),
      `export default {
  name: 'warning-plugin',
  version: '1.0.0',
  apply() {
    for (let i = 0; i < 2; i++) {
      process.emitWarning('canUseTool will not be invoked for: mcp__connector__x', {
        code: 'CLAUDE_SDK_CAN_USE_TOOL_SHADOWED',
      });
    }
  },
};
`,
    );
    const launched = launchTuttid(home, ['--no-demo'], { json: false });
    const line =
      'warning node: canUseTool will not be invoked for: mcp__connector__x [CLAUDE_SDK_CAN_USE_TOOL_SHADOWED]';
    const stderr = await printed(launched, launched.stderr, `${line} (repeated 2 times)`);
    expect(stderr).not.toContain('(node:');
    expect(stderr).not.toContain('Warning: canUseTool');
    launched.child.kill('SIGTERM');
    await launched.exited;
    expect(await logLines(home)).toContainEqual(
      expect.objectContaining({
        level: 40,
        component: 'node',
        code: 'CLAUDE_SDK_CAN_USE_TOOL_SHADOWED',
      }),
    );
  });
});

describe('a stop', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)(
    'prints stopping and stopped lines on %s',
    async (signal) => {
      const home = await homes.make();
      const launched = launchTuttid(home, ['--no-demo'], { json: false });
      await printed(launched, launched.stdout, '  stop        Ctrl-C');
      launched.child.kill(signal);
      const { code } = await launched.exited;
      expect(code).toBe(signal === 'SIGINT' ? 130 : 143);
      const stdout = launched.stdout();
      expect(stdout).toContain(
        `\nstopping (${signal}): closing the agent sessions, the connectors and the servers\n`,
      );
      expect(stdout.endsWith('\nstopped\n')).toBe(true);
      expect(stdout.indexOf('stopping')).toBeLessThan(stdout.indexOf('stopped'));
    },
  );

  it('keeps --json stdout to its ready and settled lines, and logs the stop', async () => {
    const home = await homes.make();
    const daemon = await startTuttid(home);
    daemon.child.kill('SIGTERM');
    expect((await daemon.exited).code).toBe(143);
    const events = daemon
      .stdout()
      .trimEnd()
      .split('\n')
      .map((line) => JSON.parse(line).event);
    expect(events).toEqual(['ready', 'settled']);
    const lines = await logLines(home);
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'stopping', signal: 'SIGTERM' }));
    expect(lines.at(-1)).toMatchObject({ msg: 'stopped', signal: 'SIGTERM', orderly: true });
  });
});
