/**
 * The control API answers every bad input with a 4xx and a code naming what was wrong and
 * what to do, never a 500: an install from a path that names no folder the daemon may read,
 * a body that is not JSON, a session whose folder or command the system would refuse. A
 * body-less request with a JSON content type is a request without a body.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { chmod, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cleanUp, tempDir, writeRelease, tempHomes } from '@tutti/test-kit';
import { startTuttid, stopAll, type TuttidProcess } from '@tutti/test-kit/tuttid';

const homes = tempHomes('tuttid-inputs-');
const SETPRIV = '/usr/bin/setpriv';
const AS_ROOT = process.getuid?.() === 0;
/**
 * Root reads every folder whatever its mode: as root, the daemon runs under `setpriv`
 * without the capabilities that override file permissions, so a denied folder is denied.
 */
const DENY_WRAP = AS_ROOT
  ? [
      SETPRIV,
      '--bounding-set',
      '-dac_override,-dac_read_search',
      '--inh-caps',
      '-dac_override,-dac_read_search',
      '--',
    ]
  : [];

let daemon: TuttidProcess;
let base: string;

beforeAll(async () => {
  daemon = await startTuttid(await homes.make(), ['--no-demo']);
  base = await tempDir('tutti-inputs-');
});

afterAll(async () => {
  await stopAll();
  await cleanUp();
  await homes.removeAll();
});

/** A request with the control token, a raw body and its own content type. */
async function send(
  target: TuttidProcess,
  method: string,
  path: string,
  { body, contentType }: { body?: string; contentType?: string } = {},
) {
  const response = await fetch(`${target.ready.controlUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${target.controlToken}`,
      ...(contentType && { 'content-type': contentType }),
    },
    ...(body !== undefined && { body }),
  });
  // biome-ignore lint/suspicious/noExplicitAny: answers are JSON checked by each test's assertions
  return { status: response.status, body: (await response.json()) as any };
}

function install(target: TuttidProcess, path: string) {
  return target.control('POST', '/v1/connectors/install', { path });
}

describe('POST /v1/connectors/install from a path that is no release folder', () => {
  it('answers 400 naming a path where nothing is, and what to give instead', async () => {
    const missing = join(base, 'no-such-release');
    const answer = await install(daemon, missing);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('TUTTI_ERR_STORE_RELEASE_NOT_FOUND');
    expect(answer.body.error.message).toContain(`"${missing}" does not exist`);
    expect(answer.body.error.message).toContain('tutti-connector.json at its root');
  });

  it('answers 400 for a file, and for a path that goes on below a file, naming the file', async () => {
    const file = join(base, 'release.tgz');
    await writeFile(file, 'not a folder');
    const asFile = await install(daemon, file);
    expect(asFile.status).toBe(400);
    expect(asFile.body.error.code).toBe('TUTTI_ERR_STORE_RELEASE_NOT_A_FOLDER');
    expect(asFile.body.error.message).toContain(`"${file}" is a file, not a folder`);

    const below = await install(daemon, join(file, 'release'));
    expect(below.status).toBe(400);
    expect(below.body.error.code).toBe('TUTTI_ERR_STORE_RELEASE_NOT_FOUND');
    expect(below.body.error.message).toContain(`"${file}" in its path is not a folder`);
  });

  it('answers 400 for a FIFO without waiting for a writer', async () => {
    const fifo = join(base, 'release-pipe');
    execFileSync('mkfifo', [fifo]);
    const answer = await install(daemon, fifo);
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('TUTTI_ERR_STORE_RELEASE_NOT_A_FOLDER');
    expect(answer.body.error.message).toContain(`"${fifo}" is a FIFO, not a folder`);
  });

  it('answers 400 for a path holding a NUL character, naming the field', async () => {
    const answer = await install(daemon, '/tmp/release\0x');
    expect(answer.status).toBe(400);
    expect(answer.body.error.code).toBe('TUTTI_ERR_CONTROL_BAD_REQUEST');
    expect(answer.body.error.message).toContain('"path"');
  });

  // As root without setpriv nothing can deny the daemon a folder, so nothing would be tested.
  it.skipIf(AS_ROOT && !existsSync(SETPRIV))(
    'answers 422 for a release folder, or a folder in it, that the daemon may not read',
    async () => {
      const denied = await startTuttid(await homes.make(), ['--no-demo'], { wrap: DENY_WRAP });
      const release = await writeRelease({ key: 'locked', serverArgs: [] });
      const inner = join(release, 'data');
      await mkdir(inner);
      await writeFile(join(inner, 'table.json'), '{}');
      try {
        await chmod(inner, 0o000);
        const innerAnswer = await install(denied, release);
        expect(innerAnswer.status).toBe(422);
        expect(innerAnswer.body.error.code).toBe('TUTTI_ERR_STORE_RELEASE_NO_ACCESS');
        expect(innerAnswer.body.error.message).toContain(`may not read "${inner}"`);
        await chmod(inner, 0o755);

        await chmod(release, 0o000);
        const rootAnswer = await install(denied, release);
        expect(rootAnswer.status).toBe(422);
        expect(rootAnswer.body.error.code).toBe('TUTTI_ERR_STORE_RELEASE_NO_ACCESS');
        expect(rootAnswer.body.error.message).toContain(`may not read "${release}"`);
        expect(rootAnswer.body.error.message).toContain('let the user tuttid runs as read it');
      } finally {
        await chmod(inner, 0o755).catch(() => {});
        await chmod(release, 0o755);
      }
      // With the permissions back, the same release installs.
      const installed = await install(denied, release);
      expect(installed.status).toBe(200);
      expect(installed.body.key).toBe('locked');
    },
  );
});

describe('request bodies', () => {
  it('takes a body-less DELETE with content-type application/json', async () => {
    const release = await writeRelease({ key: 'bodyless', serverArgs: [], apiKeyEnv: 'KEY' });
    expect((await install(daemon, release)).status).toBe(200);
    const json = { contentType: 'application/json' };

    const credentials = await send(daemon, 'DELETE', '/v1/connectors/bodyless/credentials', json);
    expect(credentials.status).toBe(200);
    expect(credentials.body).toMatchObject({ key: 'bodyless', authReady: false });

    const removed = await send(daemon, 'DELETE', '/v1/connectors/bodyless', {
      contentType: 'application/json; charset=utf-8',
      body: '',
    });
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ key: 'bodyless', changed: true });
  });

  it('answers a body that is not JSON in its own words, without repeating the body', async () => {
    const release = await writeRelease({ key: 'keyed', serverArgs: [], apiKeyEnv: 'KEY' });
    expect((await install(daemon, release)).status).toBe(200);
    const broken = await send(daemon, 'PUT', '/v1/connectors/keyed/credentials', {
      contentType: 'application/json',
      body: '{"secret": "sk-not-echoed-123"',
    });
    expect(broken.status).toBe(400);
    expect(broken.body.error.code).toBe('TUTTI_ERR_CONTROL_BAD_REQUEST');
    expect(broken.body.error.message).toContain('"body" is not valid (it is not valid JSON)');
    expect(broken.body.error.message).not.toContain('sk-not-echoed-123');

    const poisoned = await send(daemon, 'POST', '/v1/connectors/install', {
      contentType: 'application/json',
      body: '{"path": "/x", "__proto__": {"polluted": true}}',
    });
    expect(poisoned.status).toBe(400);
    expect(poisoned.body.error.message).toContain('"__proto__"');

    const xml = await send(daemon, 'POST', '/v1/connectors/install', {
      contentType: 'application/xml',
      body: '<path>/x</path>',
    });
    expect(xml.status).toBe(415);
    expect(xml.body.error.code).toBe('TUTTI_ERR_CONTROL_BAD_REQUEST');
    expect(xml.body.error.message).toContain('content-type application/json');
  });
});

describe('POST /v1/sessions with a folder or command the system would refuse', () => {
  const start = (fields: Record<string, unknown>) =>
    daemon.control('POST', '/v1/sessions', {
      workspaceId: 'ws',
      provider: 'acp',
      permissions: 'agent',
      launch: { command: process.execPath },
      cwd: base,
      ...fields,
    });

  it('answers 400 naming "cwd" when the agent folder is missing or a file', async () => {
    const missing = await start({ cwd: join(base, 'no-such-workspace') });
    expect(missing.status).toBe(400);
    expect(missing.body.error.message).toContain('"cwd" is not valid (no folder is at that path)');

    const file = join(base, 'workspace-file');
    await writeFile(file, '');
    const notFolder = await start({ cwd: file });
    expect(notFolder.status).toBe(400);
    expect(notFolder.body.error.message).toContain('"cwd" is not valid (it is not a folder)');
  });

  it('answers 400 naming the field for a NUL character or an environment name with "="', async () => {
    const command = await start({ launch: { command: '/bin/tr\0ue' } });
    expect(command.status).toBe(400);
    expect(command.body.error.message).toContain('"launch.command"');

    const env = await start({ env: { 'A=B': 'c' } });
    expect(env.status).toBe(400);
    expect(env.body.error.message).toContain('"env" is not valid');
  });
});
