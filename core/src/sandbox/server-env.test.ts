import { describe, expect, it } from 'vitest';
import {
  expandStateDir,
  type IsolatedEnvInput,
  isolatedServerEnv,
  plainServerEnv,
  STATE_DIR_VARIABLE,
} from './server-env.js';

const STATE = '/home/me/.tutti/connector-data/notes';
const TEMP = '/home/me/.tutti/tmp/connectors/notes-1';

/** A daemon environment with a base, network settings, a secret and the daemon's own settings. */
const daemonEnv: NodeJS.ProcessEnv = {
  PATH: '/usr/local/bin:/usr/bin:/bin',
  HOME: '/home/me',
  USER: 'me',
  LANG: 'de_DE.UTF-8',
  LANGUAGE: 'de',
  LC_ALL: 'de_DE.UTF-8',
  LC_TIME: 'C',
  TZ: 'Europe/Berlin',
  TMPDIR: '/tmp/daemon',
  HTTPS_PROXY: 'http://proxy.corp:3128',
  no_proxy: 'localhost',
  NODE_EXTRA_CA_CERTS: '/etc/corp/ca.pem',
  SSL_CERT_DIR: '/etc/ssl/certs',
  AWS_SECRET_ACCESS_KEY: 'daemon-secret',
  GITHUB_TOKEN: 'ghp_daemon',
  GIT_AUTHOR_NAME: 'Me',
  TUTTI_HOME: '/home/me/.tutti',
  TUTTI_TOKEN: 'tutti-secret',
  npm_config_registry: 'https://registry.corp/',
  INIT_CWD: '/home/me/src',
  SSH_AUTH_SOCK: '/run/user/1000/ssh-agent',
};

function isolated(extra: Partial<IsolatedEnvInput> = {}): Record<string, string> {
  return isolatedServerEnv({
    manifestEnv: {},
    credentialEnv: {},
    stateDir: STATE,
    daemonEnv,
    passed: [],
    network: 'host',
    tempDir: TEMP,
    ...extra,
  });
}

describe('isolatedServerEnv', () => {
  it('gives the base, the network settings, and its own HOME, TMPDIR and state folder', () => {
    expect(isolated()).toEqual({
      PATH: '/usr/local/bin:/usr/bin:/bin',
      LANG: 'de_DE.UTF-8',
      LANGUAGE: 'de',
      LC_ALL: 'de_DE.UTF-8',
      LC_TIME: 'C',
      TZ: 'Europe/Berlin',
      HTTPS_PROXY: 'http://proxy.corp:3128',
      no_proxy: 'localhost',
      NODE_EXTRA_CA_CERTS: '/etc/corp/ca.pem',
      SSL_CERT_DIR: '/etc/ssl/certs',
      HOME: STATE,
      TMPDIR: TEMP,
      [STATE_DIR_VARIABLE]: STATE,
    });
  });

  it('gives no proxy or CA setting to a server without the network', () => {
    expect(isolated({ network: 'none' })).toEqual({
      PATH: '/usr/local/bin:/usr/bin:/bin',
      LANG: 'de_DE.UTF-8',
      LANGUAGE: 'de',
      LC_ALL: 'de_DE.UTF-8',
      LC_TIME: 'C',
      TZ: 'Europe/Berlin',
      HOME: STATE,
      TMPDIR: TEMP,
      TUTTI_CONNECTOR_STATE_DIR: STATE,
    });
  });

  it("passes the names its manifest lists, but never the daemon's own TUTTI_, npm_ or INIT_CWD", () => {
    const env = isolated({
      passed: [
        'GIT_AUTHOR_NAME',
        'ABSENT',
        'TUTTI_TOKEN',
        'TUTTI_HOME',
        'npm_config_registry',
        'INIT_CWD',
      ],
    });
    expect(env.GIT_AUTHOR_NAME).toBe('Me');
    expect(env).not.toHaveProperty('ABSENT');
    expect(env).not.toHaveProperty('TUTTI_TOKEN');
    expect(env).not.toHaveProperty('TUTTI_HOME');
    expect(env).not.toHaveProperty('npm_config_registry');
    expect(env).not.toHaveProperty('INIT_CWD');
  });

  it("never carries a secret of the daemon's environment it was not asked for", () => {
    const env = isolated({ passed: ['GIT_AUTHOR_NAME'] });
    const values = Object.values(env);
    for (const secret of [
      'daemon-secret',
      'ghp_daemon',
      'tutti-secret',
      '/run/user/1000/ssh-agent',
    ]) {
      expect(values).not.toContain(secret);
    }
    for (const name of [
      'AWS_SECRET_ACCESS_KEY',
      'GITHUB_TOKEN',
      'SSH_AUTH_SOCK',
      'USER',
      'TUTTI_HOME',
    ]) {
      expect(env).not.toHaveProperty(name);
    }
  });

  it('keeps its own HOME and TMPDIR when the manifest passes the daemon ones', () => {
    const env = isolated({ passed: ['HOME', 'TMPDIR'] });
    expect(env.HOME).toBe(STATE);
    expect(env.TMPDIR).toBe(TEMP);
  });

  it('adds the manifest env with the state folder expanded, the credential and the launcher settings', () => {
    const env = isolated({
      manifestEnv: {
        // biome-ignore lint/suspicious/noTemplateCurlyInString: the manifest's own placeholder
        MEMORY_FILE_PATH: '${TUTTI_CONNECTOR_STATE_DIR}/memory.jsonl',
        MODE: 'fast',
        TUTTI_CONNECTOR_STATE_DIR: '/elsewhere',
      },
      credentialEnv: { NOTES_TOKEN: 'credential-secret' },
      launcherEnv: { npm_config_cache: '/home/me/.npm' },
    });
    expect(env).toMatchObject({
      MEMORY_FILE_PATH: `${STATE}/memory.jsonl`,
      MODE: 'fast',
      NOTES_TOKEN: 'credential-secret',
      npm_config_cache: '/home/me/.npm',
      TUTTI_CONNECTOR_STATE_DIR: STATE,
    });
  });

  it('lets the credential win over a manifest env of the same name', () => {
    const env = isolated({
      manifestEnv: { NOTES_TOKEN: 'placeholder' },
      credentialEnv: { NOTES_TOKEN: 'credential-secret' },
    });
    expect(env.NOTES_TOKEN).toBe('credential-secret');
  });
});

describe('plainServerEnv', () => {
  it("keeps today's inherited settings, PATH and HOME, under its own env and state folder", () => {
    const env = plainServerEnv({
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the manifest's own placeholder
      manifestEnv: { DATA: '${TUTTI_CONNECTOR_STATE_DIR}/db', LANG: 'C' },
      credentialEnv: { NOTES_TOKEN: 'credential-secret' },
      stateDir: STATE,
      daemonEnv,
    });
    expect(env).toEqual({
      PATH: '/usr/local/bin:/usr/bin:/bin',
      HOME: '/home/me',
      LANG: 'C',
      LANGUAGE: 'de',
      LC_ALL: 'de_DE.UTF-8',
      LC_TIME: 'C',
      TZ: 'Europe/Berlin',
      TMPDIR: '/tmp/daemon',
      HTTPS_PROXY: 'http://proxy.corp:3128',
      no_proxy: 'localhost',
      NODE_EXTRA_CA_CERTS: '/etc/corp/ca.pem',
      SSL_CERT_DIR: '/etc/ssl/certs',
      DATA: `${STATE}/db`,
      NOTES_TOKEN: 'credential-secret',
      TUTTI_CONNECTOR_STATE_DIR: STATE,
    });
  });

  it('leaves PATH and HOME out when the daemon has none', () => {
    const env = plainServerEnv({
      manifestEnv: {},
      credentialEnv: {},
      stateDir: STATE,
      daemonEnv: { TUTTI_TOKEN: 'tutti-secret' },
    });
    expect(env).toEqual({ TUTTI_CONNECTOR_STATE_DIR: STATE });
  });
});

describe('expandStateDir', () => {
  it('replaces every occurrence and nothing else', () => {
    expect(
      // biome-ignore lint/suspicious/noTemplateCurlyInString: the manifest's own placeholder
      expandStateDir('--db=${TUTTI_CONNECTOR_STATE_DIR}/a:${TUTTI_CONNECTOR_STATE_DIR}/b', '/s'),
    ).toBe('--db=/s/a:/s/b');
    expect(expandStateDir('$TUTTI_CONNECTOR_STATE_DIR/x', '/s')).toBe(
      '$TUTTI_CONNECTOR_STATE_DIR/x',
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: another variable's placeholder
    expect(expandStateDir('${HOME}/x', '/s')).toBe('${HOME}/x');
  });

  it('inserts a folder holding "$" patterns as it is', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the manifest's own placeholder
    expect(expandStateDir('${TUTTI_CONNECTOR_STATE_DIR}/db', "/data/$&/$1/$'")).toBe(
      "/data/$&/$1/$'/db",
    );
  });

  it('gives the same answer on repeated calls (no regex state kept between them)', () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the manifest's own placeholder
    const value = 'x ${TUTTI_CONNECTOR_STATE_DIR} y ${TUTTI_CONNECTOR_STATE_DIR}';
    expect([1, 2, 3].map(() => expandStateDir(value, '/s'))).toEqual([
      'x /s y /s',
      'x /s y /s',
      'x /s y /s',
    ]);
  });
});
