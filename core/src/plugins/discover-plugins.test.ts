import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { discoverPlugins } from './discover-plugins.js';

const root = mkdtempSync(join(tmpdir(), 'tutti-discover-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

function pkg(dir: string, json: Record<string, unknown>): string {
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify(json));
  return dir;
}

const plugin = (name: string) => ({
  name,
  version: '1.0.0',
  exports: { '.': { 'tutti-source': './src/index.ts', default: './dist/index.js' } },
  tutti: { plugin: './dist/index.js' },
});

const repo = join(root, 'repo');
const modules = join(repo, 'node_modules');
const home = join(root, 'home');
pkg(join(repo, 'providers', 'acp'), plugin('@tutti/provider-acp'));
pkg(join(repo, 'providers', 'not-a-plugin'), { name: 'helper', version: '1.0.0' });
pkg(join(repo, 'plugins', 'audit'), plugin('@tutti/plugin-audit'));
pkg(join(modules, '@acme', 'tutti-cursor'), {
  name: '@acme/tutti-cursor',
  version: '1.0.0',
  tutti: { plugin: './lib/plugin.js' },
});
pkg(join(modules, 'left-pad'), { name: 'left-pad', version: '1.0.0', main: 'index.js' });
mkdirSync(join(modules, '@tutti'), { recursive: true });
symlinkSync(join(repo, 'providers', 'acp'), join(modules, '@tutti', 'provider-acp'));
mkdirSync(join(home, 'plugins', 'with-index'), { recursive: true });
writeFileSync(join(home, 'plugins', 'with-index', 'index.mjs'), 'export default {};');
mkdirSync(join(home, 'plugins', 'empty'), { recursive: true });
writeFileSync(join(home, 'plugins', 'single.mjs'), 'export default {};');
writeFileSync(join(home, 'plugins', 'notes.txt'), 'not a plugin');

describe('discoverPlugins', () => {
  it('lists built-in, repo, installed and drop-in plugins in that order, each once', async () => {
    const found = await discoverPlugins({
      repoRoot: repo,
      nodeModules: [modules],
      home,
      mode: 'dist',
    });
    expect(found).toEqual([
      {
        source: 'builtin',
        origin: join(repo, 'providers', 'acp'),
        entry: join(repo, 'providers', 'acp', 'dist', 'index.js'),
      },
      {
        source: 'repo',
        origin: join(repo, 'plugins', 'audit'),
        entry: join(repo, 'plugins', 'audit', 'dist', 'index.js'),
      },
      {
        source: 'package',
        origin: join(modules, '@acme', 'tutti-cursor'),
        entry: join(modules, '@acme', 'tutti-cursor', 'lib', 'plugin.js'),
      },
      {
        source: 'drop-in',
        origin: join(home, 'plugins', 'empty'),
        problem: 'no package.json, index.mjs or index.js',
      },
      {
        source: 'drop-in',
        origin: join(home, 'plugins', 'single.mjs'),
        entry: join(home, 'plugins', 'single.mjs'),
      },
      {
        source: 'drop-in',
        origin: join(home, 'plugins', 'with-index'),
        entry: join(home, 'plugins', 'with-index', 'index.mjs'),
      },
    ]);
  });

  it('picks the tutti-source entry when tutti runs from sources', async () => {
    const found = await discoverPlugins({ repoRoot: repo, mode: 'source' });
    expect(found.map((candidate) => candidate.entry)).toEqual([
      join(repo, 'providers', 'acp', 'src', 'index.ts'),
      join(repo, 'plugins', 'audit', 'src', 'index.ts'),
    ]);
  });

  it('finds nothing where nothing is', async () => {
    expect(
      await discoverPlugins({ repoRoot: join(root, 'missing'), home: join(root, 'none') }),
    ).toEqual([]);
  });
});
