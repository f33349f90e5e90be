import { describe, expect, it } from 'vitest';
import { fileURLToPath } from 'node:url';
import { agentInheritedEnv, agentPath, upstreamInheritedEnv } from './inherited-env.js';

const DAEMON = {
  PATH: '/usr/bin',
  HOME: '/home/u',
  LANG: 'en_US.UTF-8',
  LC_CTYPE: 'C.UTF-8',
  TMPDIR: '/tmp/u',
  HTTPS_PROXY: 'http://proxy:3128',
  no_proxy: 'localhost',
  NODE_EXTRA_CA_CERTS: '/etc/ca.pem',
  ANTHROPIC_API_KEY: 'user-key',
  TUTTI_HOME: '/home/u/.tutti',
  npm_lifecycle_event: 'start',
  INIT_CWD: '/repo',
  CLAUDECODE: '1',
  CLAUDE_CODE_ENTRYPOINT: 'cli',
  CODEX_SANDBOX: 'seatbelt',
};

describe('agentInheritedEnv', () => {
  it("keeps the daemon's environment but its control variables, npm's and agents' nesting guards", () => {
    expect(agentInheritedEnv(DAEMON)).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/u',
      LANG: 'en_US.UTF-8',
      LC_CTYPE: 'C.UTF-8',
      TMPDIR: '/tmp/u',
      HTTPS_PROXY: 'http://proxy:3128',
      no_proxy: 'localhost',
      NODE_EXTRA_CA_CERTS: '/etc/ca.pem',
      ANTHROPIC_API_KEY: 'user-key',
    });
  });
});

describe('agentPath', () => {
  it("drops the node_modules/.bin of the daemon's install and of every folder above it, and npm's node-gyp-bin", () => {
    const installedAt = '/opt/app/node_modules/@tutti/core/dist/process/inherited-env.js';
    const path = [
      '/opt/app/node_modules/@tutti/core/node_modules/.bin',
      '/opt/app/node_modules/.bin',
      '/opt/node_modules/.bin',
      '/node_modules/.bin',
      '/usr/lib/node_modules/npm/node_modules/@npmcli/run-script/lib/node-gyp-bin',
      '/home/u/project/node_modules/.bin',
      '/home/u/.local/bin',
      '/usr/bin',
      '',
    ].join(':');
    expect(agentPath(path, installedAt)).toBe(
      '/home/u/project/node_modules/.bin:/home/u/.local/bin:/usr/bin',
    );
    expect(agentPath(undefined, installedAt)).toBeUndefined();
  });

  it("cleans the daemon's PATH of this repository's own install", () => {
    const bin = fileURLToPath(new URL('../../../node_modules/.bin', import.meta.url));
    const env = agentInheritedEnv({ PATH: `${bin}:/usr/bin` });
    expect(env.PATH).toBe('/usr/bin');
  });
});

describe('upstreamInheritedEnv', () => {
  it('keeps only the proxy, CA, locale and temp-folder settings', () => {
    expect(upstreamInheritedEnv(DAEMON)).toEqual({
      LANG: 'en_US.UTF-8',
      LC_CTYPE: 'C.UTF-8',
      TMPDIR: '/tmp/u',
      HTTPS_PROXY: 'http://proxy:3128',
      no_proxy: 'localhost',
      NODE_EXTRA_CA_CERTS: '/etc/ca.pem',
    });
  });
});
