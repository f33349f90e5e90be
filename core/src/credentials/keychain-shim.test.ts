/**
 * A connector's CLI shim over the OS keychain store, run as a real process against a real
 * Secret Service: it reads no file, runs the store's reader (the built
 * `core/dist/credentials/read-secret-cli.js`, so `tsc -b` runs first) with absolute
 * paths, hands the credential to the CLI and refuses with exit 78 once it is cleared.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cleanUp, CONNECTOR_FIXTURES as FIXTURES, SHIM_TARGET, tempDir } from '@tutti/test-kit';
import { type JoinedSecretService, joinSecretService } from '@tutti/test-kit/secret-service';
import { publishShim } from '../shims/publish-shim.js';
import { SHIM_NO_CREDENTIAL_EXIT } from '../shims/shim-script.js';
import { writeCredential } from '../store/credential-file.js';
import { createSecret } from '../store/secret.js';
import { openStore } from '../store/store.js';
import { defaultSecretReader } from './select-vault.js';

const SECRET = `sk-shim-'quoted' "$HOME" \`id\` %PATH% ü`;
let joined: JoinedSecretService | undefined;

beforeAll(async () => {
  joined = await joinSecretService();
});

afterAll(() => joined?.leave());

afterEach(cleanUp);

function runShim(path: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(path, ['one', 'two words'], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, DBUS_SESSION_BUS_ADDRESS: joined!.service.env.DBUS_SESSION_BUS_ADDRESS },
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe('a CLI shim over the OS keychain store', () => {
  it('runs the CLI with the credential from the keychain and refuses with 78 once it is cleared', async () => {
    const reader = defaultSecretReader();
    expect(existsSync(reader.script), `${reader.script} is built by \`npx tsc -b\``).toBe(true);
    const home = await tempDir();
    const store = await openStore(home, { credentialStore: 'keychain' });
    await store.install(join(FIXTURES, 'keyed'));
    await store.setCredential('keyed', SECRET);
    const source = store.credentialSource('keyed');
    expect(source).toEqual({
      command: process.execPath,
      args: [reader.script, store.home, 'keyed'],
    });
    const { path } = await publishShim({
      binDir: join(home, 'bin'),
      key: 'keyed',
      generation: 1,
      entrypoint: { command: process.execPath, args: [SHIM_TARGET, 'report'] },
      credential: { env: 'TUTTI_TEST_SECRET', ...source },
    });
    const text = await readFile(path, 'utf8');
    expect(text).not.toContain(SECRET);
    expect(text).not.toContain(join(home, 'credentials'));

    const started = performance.now();
    const ran = await runShim(path);
    const runMs = performance.now() - started;
    expect(ran).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(ran.stdout)).toMatchObject({ argv: ['one', 'two words'], secret: SECRET });
    // One node start for the reader and one for the CLI; a loose bound for a busy machine.
    expect(runMs).toBeLessThan(10_000);

    await store.setCredential('keyed', 'second-value');
    expect(JSON.parse((await runShim(path)).stdout).secret).toBe('second-value');
    expect(await readFile(path, 'utf8')).toBe(text);

    await store.clearCredential('keyed');
    const refused = await runShim(path);
    expect(refused.code).toBe(SHIM_NO_CREDENTIAL_EXIT);
    expect(refused.stdout).toBe('');
    expect(refused.stderr).toContain('connector "keyed" has no credential');

    // A secret the migration had to leave in its file (a version 1 record) still reaches it.
    await writeCredential(join(home, 'credentials'), 'keyed', 'api_key', createSecret('in-a-file'));
    expect(JSON.parse((await runShim(path)).stdout).secret).toBe('in-a-file');
  });
});
