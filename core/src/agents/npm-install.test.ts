import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cleanUp, tarGz, tempDir } from '@tutti/test-kit';
import { type FileServer, startFileServer } from '@tutti/test-kit/file-server';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAgentInstaller } from './agent-installer.js';

const run = promisify(execFile);
const AGENT = 'tutti-npm-fixture-agent';

let mirror: FileServer;
/** A postinstall script that leaves a mark in the package folder. */
const SCRIPTS = { postinstall: "node -e \"require('fs').writeFileSync('installed-mark', 'x')\"" };

/** Serves a minimal npm registry: the packument of the fixture agent and its tarball. */
async function startRegistry(): Promise<FileServer> {
  const registry = await startFileServer();
  const tgz = tarGz([
    {
      path: 'package/package.json',
      content: JSON.stringify({
        name: AGENT,
        version: '1.2.3',
        bin: { [AGENT]: 'bin/agent.js', 'other-tool': 'bin/agent.js' },
        scripts: SCRIPTS,
      }),
    },
    {
      path: 'package/bin/agent.js',
      content:
        '#!/usr/bin/env node\nconsole.log(["npm-agent", ...process.argv.slice(2), process.env.GREETING].join(" "));\n',
      mode: 0o755,
    },
  ]);
  const tarball = `${registry.url}/${AGENT}/-/${AGENT}-1.2.3.tgz`;
  registry.set(new URL(tarball).pathname, tgz);
  registry.set(
    `/${AGENT}`,
    JSON.stringify({
      name: AGENT,
      'dist-tags': { latest: '1.2.3' },
      versions: {
        '1.2.3': {
          name: AGENT,
          version: '1.2.3',
          bin: { [AGENT]: 'bin/agent.js', 'other-tool': 'bin/agent.js' },
          scripts: SCRIPTS,
          dist: {
            tarball,
            shasum: createHash('sha1').update(tgz).digest('hex'),
            integrity: `sha512-${createHash('sha512').update(tgz).digest('base64')}`,
          },
        },
      },
    }),
  );
  return registry;
}

beforeAll(async () => {
  mirror = await startRegistry();
});
afterAll(async () => {
  await mirror.close();
  await cleanUp();
});

async function npmEnv(): Promise<NodeJS.ProcessEnv> {
  const npmHome = await tempDir('tutti-npm-home-');
  return {
    PATH: process.env.PATH,
    HOME: npmHome,
    npm_config_registry: `${mirror.url}/`,
    npm_config_cache: join(npmHome, 'cache'),
    npm_config_userconfig: join(npmHome, 'npmrc'),
  };
}

function npxEntry(spec: string) {
  return {
    id: 'npm-agent',
    name: 'npm agent',
    version: '1.2.3',
    description: 'An agent from a loopback npm registry.',
    distribution: { npx: { package: spec, args: ['--acp'], env: { GREETING: 'hi' } } },
  };
}

describe('npx entries', () => {
  it('installs the pinned package with npm, without its install scripts, and runs its bin', async () => {
    const home = await tempDir('tutti-npm-');
    const agents = createAgentInstaller({ home, env: await npmEnv(), platform: 'linux-x86_64' });
    const agent = await agents.install({ entry: npxEntry(`${AGENT}@1.2.3`) });
    const runtime = join(home, 'agents', 'npm-agent', '1.2.3');
    const packageRoot = join(runtime, 'node_modules', AGENT);
    expect(agent.run).toEqual({
      command: join(packageRoot, 'bin', 'agent.js'),
      args: ['--acp'],
      env: { GREETING: 'hi' },
    });
    const { stdout } = await run(agent.run!.command, [...agent.run!.args], {
      env: { ...process.env, ...agent.run!.env },
    });
    expect(stdout.trim()).toBe('npm-agent --acp hi');
    expect(existsSync(join(packageRoot, 'installed-mark'))).toBe(false);
    expect(existsSync(join(runtime, 'package-lock.json'))).toBe(false);
    expect(mirror.requests).toContain(`/${AGENT}`);
  });

  it('runs the install scripts only when the request allows them', async () => {
    const home = await tempDir('tutti-npm-');
    const agents = createAgentInstaller({ home, env: await npmEnv(), platform: 'linux-x86_64' });
    await agents.install({ entry: npxEntry(`${AGENT}@1.2.3`), allowInstallScripts: true });
    const packageRoot = join(home, 'agents', 'npm-agent', '1.2.3', 'node_modules', AGENT);
    expect(existsSync(join(packageRoot, 'installed-mark'))).toBe(true);
  });

  it('approves the allowed package in its allowScripts, so npm with strict-allow-scripts runs them', async () => {
    const home = await tempDir('tutti-npm-');
    // npm 11.19 refuses unreviewed install scripts under this setting (ESTRICTALLOWSCRIPTS).
    const env = { ...(await npmEnv()), npm_config_strict_allow_scripts: 'true' };
    const agents = createAgentInstaller({ home, env, platform: 'linux-x86_64' });
    await agents.install({ entry: npxEntry(`${AGENT}@1.2.3`), allowInstallScripts: true });
    const packageRoot = join(home, 'agents', 'npm-agent', '1.2.3', 'node_modules', AGENT);
    expect(existsSync(join(packageRoot, 'installed-mark'))).toBe(true);
  });

  it('refuses an unpinned package before running npm, with the pin to write', async () => {
    const home = await tempDir('tutti-npm-');
    const agents = createAgentInstaller({ home, env: await npmEnv(), platform: 'linux-x86_64' });
    const before = mirror.requests.length;
    await expect(agents.install({ entry: npxEntry(`${AGENT}@^1.2.0`) })).rejects.toMatchObject({
      code: 'TUTTI_ERR_AGENT_UNPINNED',
      message: expect.stringContaining(`pin one ("${AGENT}@1.2.3")`),
    });
    expect(mirror.requests.length).toBe(before);
    expect(existsSync(join(home, 'agents', 'npm-agent'))).toBe(false);
  });

  it('says why npm failed, with its last lines, leaving no files', async () => {
    const home = await tempDir('tutti-npm-');
    const agents = createAgentInstaller({ home, env: await npmEnv(), platform: 'linux-x86_64' });
    await expect(agents.install({ entry: npxEntry(`${AGENT}@9.9.9`) })).rejects.toMatchObject({
      code: 'TUTTI_ERR_AGENT_INSTALL_FAILED',
      message: expect.stringMatching(
        /npm install tutti-npm-fixture-agent@9\.9\.9 exited with 1:\n/,
      ),
    });
    expect(existsSync(join(home, 'agents', 'npm-agent'))).toBe(false);
  });
});
