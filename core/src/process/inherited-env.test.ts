import { describe, expect, it } from 'vitest';
import { agentInheritedEnv, upstreamInheritedEnv } from './inherited-env.js';

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
