import { describe, expect, it } from 'vitest';
import { isTuttiError } from '../errors/index.js';
import { chooseDistribution, platformKey } from './distribution.js';
import { pinnedNpmPackage, pinnedPythonPackage } from './pinned-packages.js';
import { parseRegistryEntry } from './registry-entry.js';

const SHA = 'a'.repeat(64);

function entry(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    id: 'codex-acp',
    name: 'Codex',
    version: '0.9.2',
    description: 'The Codex agent over ACP.',
    repository: 'https://github.com/zed-industries/codex-acp',
    authors: ['Zed'],
    license: 'Apache-2.0',
    icon: 'https://cdn.example/icon.svg',
    distribution: { npx: { package: '@zed-industries/codex-acp@0.9.2' } },
    ...overrides,
  };
}

function refusal(raw: unknown): { code: string; field: unknown; problem: unknown } {
  try {
    parseRegistryEntry(raw);
  } catch (error) {
    if (!isTuttiError(error)) throw error;
    return { code: error.code, field: error.details.field, problem: error.details.problem };
  }
  throw new Error('the entry was accepted');
}

describe('registry entries', () => {
  it('accepts a real-looking entry and keeps fields the registry added', () => {
    const parsed = parseRegistryEntry({ ...entry(), addedLater: { any: 'thing' } });
    expect(parsed.id).toBe('codex-acp');
    expect(parsed.distribution.npx?.package).toBe('@zed-industries/codex-acp@0.9.2');
  });

  it('names the field and the fix of each refusal', () => {
    expect(refusal(entry({ id: 'Codex_ACP' }))).toMatchObject({
      code: 'TUTTI_ERR_AGENT_BAD_ENTRY',
      field: 'id',
      problem: expect.stringContaining('lowercase letters'),
    });
    expect(refusal(entry({ version: '../x' }))).toMatchObject({ field: 'version' });
    expect(refusal(entry({ distribution: {} }))).toMatchObject({
      field: 'distribution',
      problem: expect.stringContaining('"npx", "uvx" or "binary"'),
    });
    expect(refusal([1, 2])).toMatchObject({
      field: '(entry)',
      problem: expect.stringContaining('not a JSON object'),
    });
  });

  it('refuses unknown fields inside a distribution target', () => {
    const raw = entry({ distribution: { npx: { package: 'a@1.0.0', postinstall: 'rm -rf /' } } });
    expect(refusal(raw)).toMatchObject({
      field: 'distribution.npx.postinstall',
      problem: expect.stringContaining('not a field of this target'),
    });
  });

  it('refuses a bad environment name and a NUL anywhere', () => {
    const badEnv = entry({ distribution: { npx: { package: 'a@1.0.0', env: { 'A=B': 'x' } } } });
    expect(refusal(badEnv)).toMatchObject({
      field: expect.stringContaining('distribution.npx.env'),
    });
    const nul = entry({ distribution: { npx: { package: 'a@1.0.0', args: ['ok', 'x\0y'] } } });
    expect(refusal(nul)).toMatchObject({
      field: 'distribution.npx.args[1]',
      problem: expect.stringContaining('NUL'),
    });
  });

  it('refuses a binary target without a command or with a bad sha256', () => {
    const target = { archive: 'https://example.test/a.tar.gz', sha256: 'nothex' };
    const raw = entry({ distribution: { binary: { 'linux-x86_64': { ...target, cmd: './a' } } } });
    expect(refusal(raw)).toMatchObject({ field: 'distribution.binary.linux-x86_64.sha256' });
    const noCmd = entry({
      distribution: { binary: { 'linux-x86_64': { archive: target.archive } } },
    });
    expect(refusal(noCmd)).toMatchObject({ field: 'distribution.binary.linux-x86_64.cmd' });
  });
});

describe('choosing a distribution', () => {
  const binary = { archive: 'https://example.test/a.tar.gz', sha256: SHA, cmd: './a' };

  it('names platforms as the registry does', () => {
    expect(platformKey('linux', 'x64')).toBe('linux-x86_64');
    expect(platformKey('darwin', 'arm64')).toBe('darwin-aarch64');
    expect(platformKey('win32', 'x64')).toBe('windows-x86_64');
  });

  it('prefers npx, then this platform binary, then uvx', () => {
    const all = parseRegistryEntry(
      entry({
        distribution: {
          npx: { package: 'a@1.0.0' },
          uvx: { package: 'a==1.0.0' },
          binary: { 'linux-x86_64': binary },
        },
      }),
    );
    expect(chooseDistribution(all, 'linux-x86_64').kind).toBe('npx');
    const noNpx = parseRegistryEntry(
      entry({ distribution: { uvx: { package: 'a==1.0.0' }, binary: { 'linux-x86_64': binary } } }),
    );
    expect(chooseDistribution(noNpx, 'linux-x86_64').kind).toBe('binary');
    expect(chooseDistribution(noNpx, 'darwin-aarch64').kind).toBe('uvx');
  });

  it('refuses an entry with nothing for this platform', () => {
    const only = parseRegistryEntry(
      entry({ distribution: { binary: { 'darwin-aarch64': binary } } }),
    );
    expect(() => chooseDistribution(only, 'linux-x86_64')).toThrow(
      expect.objectContaining({ code: 'TUTTI_ERR_AGENT_NO_PLATFORM' }),
    );
  });
});

describe('package pins', () => {
  it('reads exact npm and Python pins', () => {
    expect(pinnedNpmPackage('x', '@scope/name@1.2.3-beta.1', '1')).toEqual({
      name: '@scope/name',
      version: '1.2.3-beta.1',
    });
    expect(pinnedPythonPackage('x', 'fast-agent-mcp==0.4.2', '1')).toEqual({
      name: 'fast-agent-mcp',
      version: '0.4.2',
    });
  });

  it.each([
    '@scope/name',
    'name@^1.2.3',
    'name@latest',
    'name@1.x',
    'name@git+https://example.test/x.git',
    'name@file:../x',
    'https://example.test/x.tgz',
  ])('refuses the npm spec %s with an example pin', (spec) => {
    expect(() => pinnedNpmPackage('my-agent', spec, '1.2.3')).toThrow(
      expect.objectContaining({
        code: 'TUTTI_ERR_AGENT_UNPINNED',
        message: expect.stringMatching(/pin one \("[^"]+@1\.2\.3"\)/),
      }),
    );
  });

  it('refuses a Python range', () => {
    expect(() => pinnedPythonPackage('my-agent', 'agent>=1.0', '1.2.3')).toThrow(
      expect.objectContaining({
        code: 'TUTTI_ERR_AGENT_UNPINNED',
        message: expect.stringContaining('agent==1.2.3'),
      }),
    );
  });
});
