import {
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  realpath,
  rename,
  rm,
  stat,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isTuttiError, type MCPServerBinding, sessionFiles } from '@tutti/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createCodexDescriptor } from './descriptor.js';
import { sessionConfig, writeSessionHome } from './session-home.js';

const binding: MCPServerBinding = {
  name: 'connector',
  type: 'http',
  url: 'http://127.0.0.1:4711/mcp/connector',
  headers: { Authorization: 'Bearer t0ken' },
};

let root: string;
let userHome: string;

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'tutti-session-home-')));
  userHome = join(root, 'user');
  await mkdir(userHome);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Projects the user's config with the binding and writes the home, as the provider does. */
const create = async () => {
  const descriptor = createCodexDescriptor({ userHome });
  const files = sessionFiles(join(root, 'session'));
  const home = await writeSessionHome(
    files,
    descriptor,
    await sessionConfig(descriptor, [binding]),
  );
  return {
    dir: home.dir,
    async dispose() {
      await home.dispose();
      await files.remove();
    },
  };
};

describe('createSessionHome', () => {
  it('links the user login, instructions and skills instead of copying them', async () => {
    await writeFile(join(userHome, 'auth.json'), '{"tokens":"user"}', { mode: 0o600 });
    await writeFile(join(userHome, 'AGENTS.md'), '# mine');
    await mkdir(join(userHome, 'skills'));
    const home = await create();
    for (const name of ['auth.json', 'AGENTS.md', 'skills']) {
      expect((await lstat(join(home.dir, name))).isSymbolicLink()).toBe(true);
    }
    await home.dispose();
    expect(await readFile(join(userHome, 'auth.json'), 'utf8')).toBe('{"tokens":"user"}');
  });

  it('writes a login the agent replaced in the session back to the user home on dispose', async () => {
    await writeFile(join(userHome, 'auth.json'), '{"tokens":"old"}', { mode: 0o600 });
    const home = await create();
    // An agent refreshing its token writes a new file and renames it over the link.
    const next = join(home.dir, 'auth.json.tmp');
    await writeFile(next, '{"tokens":"rotated"}', { mode: 0o600 });
    await rename(next, join(home.dir, 'auth.json'));

    await home.dispose();

    expect(await readFile(join(userHome, 'auth.json'), 'utf8')).toBe('{"tokens":"rotated"}');
    expect((await stat(join(userHome, 'auth.json'))).mode & 0o777).toBe(0o600);
    await expect(stat(home.dir)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('refuses a user config that is not valid TOML, naming the file but no secret', async () => {
    await writeFile(join(userHome, 'config.toml'), 'model = "o3\n');
    const error = await create().catch((caught: unknown) => caught);
    expect(isTuttiError(error, 'TUTTI_ERR_PROVIDER_USER_CONFIG_INVALID')).toBe(true);
    expect((error as Error).message).toContain(join(userHome, 'config.toml'));
    expect((error as Error).message).not.toContain('t0ken');
  });
});
