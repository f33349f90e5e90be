import { describe, expect, it } from 'vitest';
import { parseManifest } from './read-manifest.js';
import { resolveReleasePaths } from './release-paths.js';

const base = { key: 'demo', name: 'Demo', description: 'A demo.', version: '1.0.0' };

describe('resolveReleasePaths', () => {
  it('resolves "./" commands and arguments against the release and keeps the rest', () => {
    const manifest = parseManifest(
      {
        ...base,
        mcp: { command: './bin/server', args: ['--data', './data/db.json', '-v'], env: { A: '1' } },
        cli: { command: 'python3', args: ['./cli.py', '/usr/share/x'] },
      },
      'inline',
    );
    expect(resolveReleasePaths(manifest, '/opt/tutti/releases/abc')).toEqual({
      releaseDir: '/opt/tutti/releases/abc',
      mcp: {
        transport: 'stdio',
        command: '/opt/tutti/releases/abc/bin/server',
        args: ['--data', '/opt/tutti/releases/abc/data/db.json', '-v'],
        env: { A: '1' },
      },
      cli: { command: 'python3', args: ['/opt/tutti/releases/abc/cli.py', '/usr/share/x'] },
      skillsDir: '/opt/tutti/releases/abc/skills',
    });
  });

  it('resolves a relative command without "./" against the release, never a working folder', () => {
    const manifest = parseManifest(
      {
        ...base,
        mcp: { command: 'bin/server', args: ['lib/x.js'] },
        cli: { command: 'tools\\run.cmd' },
      },
      'inline',
    );
    const paths = resolveReleasePaths(manifest, '/opt/r');
    expect(paths.mcp).toMatchObject({ command: '/opt/r/bin/server', args: ['lib/x.js'] });
    expect(paths.cli?.command).toBe('/opt/r/tools\\run.cmd');
    const bare = parseManifest({ ...base, cli: { command: 'node', args: [] } }, 'inline');
    expect(resolveReleasePaths(bare, '/opt/r').cli?.command).toBe('node');
    const absolute = parseManifest({ ...base, cli: { command: '/usr/bin/env' } }, 'inline');
    expect(resolveReleasePaths(absolute, '/opt/r').cli?.command).toBe('/usr/bin/env');
  });

  it('carries a remote endpoint unchanged and uses a declared skills folder', () => {
    const manifest = parseManifest(
      { ...base, mcp: { url: 'https://x.example/mcp' }, skills: 'guides/skills' },
      'inline',
    );
    const paths = resolveReleasePaths(manifest, '/r');
    expect(paths.mcp).toEqual({ transport: 'http', url: 'https://x.example/mcp' });
    expect(paths.skillsDir).toBe('/r/guides/skills');
    expect(paths.cli).toBeUndefined();
  });

  it('makes a relative release folder absolute', () => {
    const manifest = parseManifest({ ...base, cli: { command: './run' } }, 'inline');
    expect(resolveReleasePaths(manifest, 'rel/dir').cli?.command).toBe(
      `${process.cwd()}/rel/dir/run`,
    );
  });
});
