/**
 * The provider of docs/writing-a-provider.md: the doc shows `plugins/example-provider` as it
 * is, and that file, copied into `<home>/plugins`, is discovered as a drop-in plugin and
 * used to start and close a session.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentSessionHost } from '@tutti/core';
import { discoverAndLoadPlugins, createTokenService } from '@tutti/core/internal';
import { afterEach, describe, expect, it } from 'vitest';
import { createFakeConnector } from '@tutti/test-kit/core/fake-connector';

const doc = readFileSync(new URL('../../docs/writing-a-provider.md', import.meta.url), 'utf8');
const EXAMPLE = readFileSync(
  new URL('../../plugins/example-provider/my-agent-provider.mjs', import.meta.url),
  'utf8',
);

/** The example module between the doc's markers. */
function exampleSource(): string {
  const match =
    /<!-- example: my-agent-provider\.mjs -->\n```js\n([\s\S]*?)```\n<!-- end example -->/.exec(
      doc,
    );
  if (!match) throw new Error('docs/writing-a-provider.md lost its example markers');
  return match[1]!;
}

/** The running state of `pid` from /proc, or undefined when it is gone. */
function processState(pid: number): string | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  } catch {
    return undefined;
  }
}

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('docs/writing-a-provider.md', () => {
  it('shows the example provider of plugins/example-provider as it is, in under 60 lines', () => {
    expect(exampleSource()).toBe(EXAMPLE);
    expect(EXAMPLE.trimEnd().split('\n').length).toBeLessThan(60);
  });

  it('walks to a drop-in provider plugin that starts, binds and closes a real agent process', async () => {
    const home = mkdtempSync(join(tmpdir(), 'tutti-home-'));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    mkdirSync(join(home, 'plugins'));
    writeFileSync(join(home, 'plugins', 'my-agent-provider.mjs'), EXAMPLE);

    const tokens = createTokenService();
    const host = new AgentSessionHost({
      connector: createFakeConnector(),
      tokens,
      sessionsDir: home,
    });
    cleanups.push(() => host.close());
    const results = await discoverAndLoadPlugins(host, { home });
    expect(results).toMatchObject([
      { source: 'drop-in', name: 'my-agent-provider', status: 'applied', providers: ['my-agent'] },
    ]);

    const info = await host.createSession({
      provider: 'my-agent',
      workspaceId: 'ws-doc',
      cwd: home,
      permissions: 'agent',
      env: { PATH: process.env.PATH ?? '' },
      launch: { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] },
    });
    expect(info).toMatchObject({ status: 'ready', connector: 'bound' });
    const pid = info.pid!;
    const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0');
    const configFile = environ
      .find((entry) => entry.startsWith('MY_AGENT_CONFIG='))!
      .split('=')[1]!;
    expect(statSync(configFile).mode & 0o777).toBe(0o600);
    const config = JSON.parse(readFileSync(configFile, 'utf8'));
    const token = config.servers.connector.headers.Authorization.slice('Bearer '.length);
    expect(tokens.verify(token)).toMatchObject({ agentSessionId: info.id, workspaceId: 'ws-doc' });
    expect(config.servers.connector.url).toBe('http://127.0.0.1:4711/mcp/connector');
    expect(processState(pid)).toMatch(/^[RS]$/);

    await host.closeSession(info.id);
    expect(processState(pid)).toBeUndefined();
    expect(tokens.verify(token)).toBeUndefined();
    expect(() => statSync(configFile)).toThrow(/ENOENT/);
  });
});
