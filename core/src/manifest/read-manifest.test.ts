import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CONNECTOR_FIXTURES as fixtures } from '@tutti/test-kit';
import { isTuttiError } from '../errors/index.js';
import { listSkills, readManifest } from './read-manifest.js';

const temps: string[] = [];

afterEach(async () => {
  await Promise.all(temps.splice(0).map((dir) => rm(dir, { recursive: true, force: true })));
});

/** A temp release folder with `files` (path -> content). */
async function release(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tutti-manifest-'));
  temps.push(dir);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(join(dir, path, '..'), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

const manifest = (fields: Record<string, unknown>) =>
  JSON.stringify({
    key: 'demo',
    name: 'Demo',
    description: 'A demo.',
    version: '1.0.0',
    ...fields,
  });

async function failure(dir: string): Promise<Error> {
  return readManifest(dir).then(
    () => {
      throw new Error('expected readManifest to fail');
    },
    (error: Error) => error,
  );
}

describe('readManifest', () => {
  it.each(['echo', 'keyed', 'remote-docs', 'remote-search', 'skills-only'])(
    'reads the valid fixture %s',
    async (name) => {
      const read = await readManifest(join(fixtures, name));
      expect(read.name.length).toBeGreaterThan(0);
    },
  );

  it('fails with TUTTI_ERR_MANIFEST_UNREADABLE when the folder has no manifest', async () => {
    const error = await failure(join(fixtures, 'invalid/no-manifest'));
    expect(isTuttiError(error, 'TUTTI_ERR_MANIFEST_UNREADABLE')).toBe(true);
    expect(error.message).toContain('invalid/no-manifest/tutti-connector.json" (ENOENT)');
  });

  it('fails with TUTTI_ERR_MANIFEST_INVALID_JSON for a truncated manifest', async () => {
    const dir = await release({ 'tutti-connector.json': '{ "key": "demo", "na' });
    const error = await failure(dir);
    expect(isTuttiError(error, 'TUTTI_ERR_MANIFEST_INVALID_JSON')).toBe(true);
    expect(error.message).toContain(join(dir, 'tutti-connector.json'));
  });

  it('reports every problem of the invalid fixtures with field and fix', async () => {
    const missing = await failure(join(fixtures, 'invalid/missing-command'));
    expect(missing.message).toContain(
      'mcp.command: required: set the command that starts the MCP server',
    );
    const bad = await failure(join(fixtures, 'invalid/bad-fields'));
    expect(bad.message).toMatch(
      /^Connector manifest ".*\/bad-fields\/tutti-connector.json" is not valid: /,
    );
    expect(bad.message.slice(bad.message.indexOf('is not valid: ') + 14).split('; ')).toEqual([
      'auth.kind: unknown value "password": use "none", "api_key" or "oauth2"',
      'homepage: unknown field: remove it or check its spelling',
      'key: must match [a-z0-9][a-z0-9-]{0,31}: use 1-32 lowercase letters, digits or "-", starting with a letter or digit (no "_")',
      'mcp.protocol: must be one of "2025-06-18", "2026-07-28": use "2025-06-18" or "2026-07-28", or remove it to negotiate',
      'mcp.url: plain http is allowed only for 127.0.0.1, localhost or [::1]: set the https URL of the remote Streamable HTTP endpoint',
      'name: must not be empty: set a short display name (1-64 characters)',
      'version: must be a semantic version: set the release version as a semantic version, e.g. "1.2.0".',
    ]);
    const nothing = await failure(join(fixtures, 'invalid/nothing-declared'));
    expect(nothing.message).toContain('(manifest): declares nothing to use');
    const escaping = await failure(join(fixtures, 'invalid/escaping-path'));
    expect(escaping.message).toContain('cli.command: a "./" path must stay inside the release');
  });

  it('rejects a "./" command that is not in the release', async () => {
    const error = await failure(join(fixtures, 'invalid/missing-file'));
    expect(error.message).toContain(
      'cli.command: file "./bin/ghost.mjs" not found in the release: add the file to the release or fix the path',
    );
  });

  it('does not look for commands found on PATH', async () => {
    const dir = await release({ 'tutti-connector.json': manifest({ cli: { command: 'git' } }) });
    expect((await readManifest(dir)).cli?.command).toBe('git');
  });

  it('rejects a declared skills folder that does not exist', async () => {
    const dir = await release({
      'tutti-connector.json': manifest({ cli: { command: 'git' }, skills: 'guides' }),
    });
    expect((await failure(dir)).message).toContain(
      'skills: folder "guides" not found in the release: add the folder or remove the field',
    );
  });

  it('rejects a skills-only release without any SKILL.md', async () => {
    const dir = await release({
      'tutti-connector.json': manifest({ skills: 'skills' }),
      'skills/empty/README.md': 'not a skill',
    });
    expect((await failure(dir)).message).toContain(
      'skills: no <skill>/SKILL.md found and no "mcp" or "cli" declared',
    );
  });
});

describe('listSkills', () => {
  it('lists the folders holding a SKILL.md, sorted, and nothing for a missing folder', async () => {
    const dir = await release({
      'skills/zeta/SKILL.md': '# z',
      'skills/alpha/SKILL.md': '# a',
      'skills/notes/README.md': 'no skill here',
      'skills/loose.md': 'not in a folder',
    });
    expect(await listSkills(join(dir, 'skills'))).toEqual(['alpha', 'zeta']);
    expect(await listSkills(join(dir, 'absent'))).toEqual([]);
  });
});
