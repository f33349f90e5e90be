import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { access, chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { isProcessRunning, readProcessTable, SCOPE_ENV } from '../process/index.js';
import { publishShim, SHIM_NO_CREDENTIAL_EXIT } from '../shims/index.js';
import { cleanUp, STDIO_SERVER, tempDir, writeRelease } from '@tutti/test-kit';
import { groupGone } from '@tutti/test-kit/processes';
import type { ConnectorRuntime } from './connector-runtime.js';
import { createTestRuntime } from '@tutti/test-kit/core/test-runtime';

const runtimes: ConnectorRuntime[] = [];

afterEach(async () => {
  await Promise.all(runtimes.splice(0).map((runtime) => runtime.close()));
  await cleanUp();
});

// A failed start retries no sooner than a minute here: a retry's own reconcile of the key
// would otherwise race the shim checks made between two reconciles.
async function setup() {
  const context = await createTestRuntime({ backoff: { initialMs: 60_000, maxMs: 60_000 } });
  runtimes.push(context.runtime);
  return context;
}

/** Runs a shim like an agent would: a fresh process, the agent's PATH. */
async function runShim(path: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return promisify(execFile)(path, [], { env: { PATH: process.env.PATH ?? '' } }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

const REPORT_KEY =
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the CLI script's own template
  'console.log(`v${process.argv[2]} key=${process.env.SHIMMY_KEY ?? "none"}`);\n';

/** A CLI connector that needs a key, with an MCP server that cannot start. */
function failingKeyedRelease(version = '1.0.0') {
  return writeRelease({
    key: 'shimmy',
    version,
    cli: REPORT_KEY.replace('process.argv[2]', `"${version}"`),
    serverArgs: [],
    command: '/nonexistent/tutti-mcp',
    apiKeyEnv: 'SHIMMY_KEY',
  });
}

const exists = (path: string) =>
  access(path).then(
    () => true,
    () => false,
  );

describe('connector runtime: CLI shims follow installed-and-authorized state', () => {
  it('serves the CLI while its upstream fails, and removes the shim when authorization goes', async () => {
    const { store, runtime, binDir } = await setup();
    await store.install(await failingKeyedRelease());
    await runtime.reconcile();
    const shim = join(binDir, 'tutti-connector-shimmy');
    expect(await exists(shim)).toBe(false);
    await store.setCredential('shimmy', 'sk-first-value');
    await runtime.reconcile();
    expect(runtime.status()[0]).toMatchObject({ key: 'shimmy', state: 'failed', cli: 'ready' });
    expect((await runShim(shim)).stdout).toBe('v1.0.0 key=sk-first-value\n');
    expect(await readFile(shim, 'utf8')).not.toContain('sk-first-value');
    // A new credential reaches the CLI at once, before any reconcile.
    await store.setCredential('shimmy', 'sk-second-value');
    expect((await runShim(shim)).stdout).toBe('v1.0.0 key=sk-second-value\n');
    await store.clearCredential('shimmy');
    const refused = await runShim(shim);
    expect(refused.code).toBe(SHIM_NO_CREDENTIAL_EXIT);
    expect(refused.stderr).not.toContain('sk-');
    await runtime.reconcile();
    expect(await exists(shim)).toBe(false);
  });

  it('removes the shim of a connector uninstalled while its upstream fails', async () => {
    const { store, runtime, binDir } = await setup();
    await store.install(await failingKeyedRelease());
    await store.setCredential('shimmy', 'sk-value');
    await runtime.reconcile();
    const shim = join(binDir, 'tutti-connector-shimmy');
    expect(await exists(shim)).toBe(true);
    await store.uninstall('shimmy');
    await runtime.reconcile();
    expect(await exists(shim)).toBe(false);
    expect(runtime.status()).toEqual([]);
  });

  it('points the shim at the new release right after an upgrade', async () => {
    const { store, runtime, binDir } = await setup();
    await store.install(await failingKeyedRelease('1.0.0'));
    await store.setCredential('shimmy', 'sk-value');
    await runtime.reconcile();
    const shim = join(binDir, 'tutti-connector-shimmy');
    expect((await runShim(shim)).stdout).toBe('v1.0.0 key=sk-value\n');
    await store.install(await failingKeyedRelease('2.0.0'));
    await runtime.reconcile();
    expect((await runShim(shim)).stdout).toBe('v2.0.0 key=sk-value\n');
  });

  it('removes at its first reconcile the shims an earlier daemon left for connectors now gone', async () => {
    const { runtime, binDir } = await setup();
    const left = await publishShim({
      binDir,
      key: 'ghost',
      generation: 7,
      entrypoint: { command: '/bin/echo', args: ['ghost'] },
    });
    await writeFile(join(binDir, 'unrelated-tool'), '#!/bin/sh\n');
    await runtime.reconcile();
    expect(await exists(left.path)).toBe(false);
    expect(await exists(join(binDir, 'unrelated-tool'))).toBe(true);
  });
});

describe('connector runtime: commands come from the release', () => {
  it('runs a relative cli.command and mcp.command from the release, never from the working folder', async () => {
    const { store, runtime, binDir, registry } = await setup();
    const release = await writeRelease({ key: 'relcmd' });
    await mkdir(join(release, 'bin'), { recursive: true });
    await writeFile(join(release, 'bin', 'tool'), '#!/bin/sh\necho from-the-release\n');
    await chmod(join(release, 'bin', 'tool'), 0o755);
    await writeFile(
      join(release, 'bin', 'server'),
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(STDIO_SERVER)}\n`,
    );
    await chmod(join(release, 'bin', 'server'), 0o755);
    const manifestPath = join(release, 'tutti-connector.json');
    const manifest = JSON.parse(await readFile(manifestPath, 'utf8'));
    manifest.cli = { command: 'bin/tool' };
    manifest.mcp = { command: 'bin/server' };
    await writeFile(manifestPath, JSON.stringify(manifest));
    const installed = await store.install(release);
    expect(installed.paths.cli?.command).toBe(join(installed.releaseDir, 'bin', 'tool'));
    await runtime.reconcile();
    expect(registry.resolve('relcmd_echo')).toBeDefined();
    // A repository the agent works in supplies its own bin/tool.
    const work = await tempDir('tutti-agent-work-');
    await mkdir(join(work, 'bin'));
    await writeFile(join(work, 'bin', 'tool'), '#!/bin/sh\necho from-the-working-folder\n');
    await chmod(join(work, 'bin', 'tool'), 0o755);
    const { stdout } = await promisify(execFile)(join(binDir, 'tutti-connector-relcmd'), [], {
      cwd: work,
      env: { PATH: `bin:.:${process.env.PATH ?? ''}` },
    });
    expect(stdout).toBe('from-the-release\n');
  });
});

describe('connector runtime: no process outlives its connector', () => {
  it('ends the processes that left the upstream group when the connector is uninstalled', async () => {
    const { store, runtime, registry } = await setup();
    await store.install(
      await writeRelease({ key: 'leaver', serverArgs: ['--spawn-escaper', '--spawn-orphan'] }),
    );
    await runtime.reconcile();
    const binding = registry.resolve('leaver_env_keys');
    expect(binding).toBeDefined();
    const pid = runtime.status()[0]!.pid!;
    const leavers = await waitForLeavers(pid, 2);
    for (const leaver of leavers) expect(isProcessRunning(leaver)).toBe(true);
    await store.uninstall('leaver');
    await runtime.reconcile();
    expect(await groupGone(pid)).toBe(true);
    for (const leaver of leavers) expect(isProcessRunning(leaver)).toBe(false);
  });
});

/** Pids of the processes of `leader`'s tree (same scope marker) outside its group. */
async function waitForLeavers(leader: number, count: number): Promise<number[]> {
  const marker = readFileSync(`/proc/${leader}/environ`, 'utf8')
    .split('\0')
    .find((entry) => entry.startsWith(`${SCOPE_ENV}=`))!;
  for (let i = 0; i < 400; i++) {
    const found = [...readProcessTable().values()]
      .filter((entry) => entry.pgid !== leader && entry.state !== 'Z')
      .map((entry) => entry.pid)
      .filter((p) => {
        try {
          return readFileSync(`/proc/${p}/environ`, 'utf8').split('\0').includes(marker);
        } catch {
          return false;
        }
      });
    if (found.length >= count) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the upstream started no processes outside its group');
}
