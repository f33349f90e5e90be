import { describe, expect, it } from 'vitest';
import { manifestJsonSchema } from './manifest-schema.js';
import { parseManifest, validateManifest } from './read-manifest.js';
import { isProtectedHomePath, PROTECTED_HOME_PATHS } from './sandbox-schema.js';

const base = {
  key: 'notes',
  name: 'Notes',
  description: 'Reads notes.',
  version: '1.0.0',
};

/** A stdio manifest whose `mcp.sandbox` is `sandbox`. */
const withSandbox = (sandbox: unknown) => ({
  ...base,
  mcp: { command: 'node', args: ['./server.mjs'], sandbox },
});

/** The `path: problem: fix` lines for `value`, or [] when it is valid. */
function problems(value: unknown): string[] {
  const result = validateManifest(value);
  return result.ok ? [] : result.issues.map((i) => `${i.path}: ${i.problem}: ${i.fix}`);
}

const PATH_FIX = 'name a path under the home as "~/folder", outside the protected folders';
const PROTECTED =
  'this folder holds keys, credentials or browser data and is never given to a connector';

describe('mcp.sandbox home paths', () => {
  it.each([
    ['~/.ssh', [PROTECTED]],
    ['~/.ssh/x', [PROTECTED]],
    ['~/.ssh/', [PROTECTED]],
    ['~/.config/gcloud', [PROTECTED]],
    ['~/.config/gh/hosts.yml', [PROTECTED]],
    ['~/.tutti', [PROTECTED]],
    ['~/.mozilla', [PROTECTED]],
    ['~//.ssh', [PROTECTED]],
    ['~/.config//gcloud', [PROTECTED]],
    [
      '~',
      [
        'a path here is under the home: "~/" and a relative path',
        'the whole home is never given; name the folders the server needs',
      ],
    ],
    [
      '~/',
      [
        'a path here is under the home: "~/" and a relative path',
        'the whole home is never given; name the folders the server needs',
      ],
    ],
    ['~/a/../b', ['a home path may not hold "." or ".." parts']],
    ['~/./b', ['a home path may not hold "." or ".." parts']],
    ['/etc', ['a path here is under the home: "~/" and a relative path']],
    ['notes', ['a path here is under the home: "~/" and a relative path']],
  ])('refuses %j to read and to write, saying why', (path, why) => {
    for (const access of ['read', 'write']) {
      expect(problems(withSandbox({ filesystem: { [access]: [path] } }))).toEqual(
        why.map((problem) => `mcp.sandbox.filesystem.${access}[0]: ${problem}: ${PATH_FIX}`),
      );
    }
  });

  it.each([['~/Projects'], ['~/Projects/site/'], ['~/.config/app'], ['~/.sshx']])(
    'accepts %j to read and to write',
    (path) => {
      const manifest = parseManifest(
        withSandbox({ filesystem: { read: [path], write: [path] } }),
        'inline',
      );
      expect(manifest.mcp).toMatchObject({
        sandbox: { filesystem: { read: [path], write: [path] } },
      });
    },
  );

  it.each([['~/.config'], ['~/.local/share'], ['~//.cargo/'], ['~/Library']])(
    'accepts %j to read, but not to write: it holds a protected folder',
    (path) => {
      expect(problems(withSandbox({ filesystem: { read: [path] } }))).toEqual([]);
      const refused = problems(withSandbox({ filesystem: { write: [path] } }));
      expect(refused).toHaveLength(1);
      expect(refused[0]).toContain(
        'this folder holds folders of keys, credentials or browser data, so it is never writable',
      );
    },
  );

  it('refuses every path of the protected list and what lies inside it, and nothing beside it', () => {
    for (const path of PROTECTED_HOME_PATHS) {
      expect(isProtectedHomePath(path), path).toBe(true);
      expect(isProtectedHomePath(`${path}/inside`), path).toBe(true);
      expect(isProtectedHomePath(`${path}-other`), path).toBe(false);
    }
    expect(isProtectedHomePath('/.ssh')).toBe(true);
    expect(isProtectedHomePath('.config//gh/')).toBe(true);
    expect(isProtectedHomePath('.config')).toBe(false);
    expect(isProtectedHomePath('Projects/.ssh')).toBe(false);
  });

  it('refuses more than 32 paths of one kind', () => {
    const paths = Array.from({ length: 33 }, (_, i) => `~/p${i}`);
    expect(problems(withSandbox({ filesystem: { read: paths } }))).toEqual([
      `mcp.sandbox.filesystem.read: too long (maximum 32): ${PATH_FIX}`,
    ]);
  });
});

describe('mcp.sandbox defaults and fields', () => {
  it('fills an empty block with no home paths, the host network, no variables and no limits', () => {
    const manifest = parseManifest(withSandbox({}), 'inline');
    expect(manifest.mcp).toEqual({
      command: 'node',
      args: ['./server.mjs'],
      env: {},
      sandbox: { filesystem: { read: [], write: [] }, network: 'host', env: [], limits: {} },
    });
  });

  it('keeps a stdio server without the block without one', () => {
    const manifest = parseManifest({ ...base, mcp: { command: 'node' } }, 'inline');
    expect(manifest.mcp).not.toHaveProperty('sandbox');
  });

  it('accepts network "none" and "host" and refuses anything else', () => {
    expect(problems(withSandbox({ network: 'none' }))).toEqual([]);
    expect(problems(withSandbox({ network: 'host' }))).toEqual([]);
    expect(problems(withSandbox({ network: 'lan' }))).toEqual([
      'mcp.sandbox.network: must be one of "none", "host": use "none" or "host"',
    ]);
  });

  it('accepts variable names a process can carry and refuses others', () => {
    expect(problems(withSandbox({ env: ['GIT_AUTHOR_NAME', '_x1'] }))).toEqual([]);
    expect(problems(withSandbox({ env: ['OK', 'BAD-NAME', '1ST', ''] }))).toEqual(
      ['[1]', '[2]', '[3]'].map(
        (index) =>
          `mcp.sandbox.env${index}: an environment variable name is [A-Za-z_][A-Za-z0-9_]*: name a variable of the daemon's environment, e.g. "GIT_AUTHOR_NAME"`,
      ),
    );
  });

  it.each([
    [{ memoryMiB: 64, processes: 8 }, []],
    [{ memoryMiB: 65_536, processes: 4096 }, []],
    [
      { memoryMiB: 63, processes: 7 },
      [
        'mcp.sandbox.limits.memoryMiB: too short (minimum 64): use a whole number of MiB from 64 to 65536',
        'mcp.sandbox.limits.processes: too short (minimum 8): use a whole number from 8 to 4096',
      ],
    ],
    [
      { memoryMiB: 65_537, processes: 4097 },
      [
        'mcp.sandbox.limits.memoryMiB: too long (maximum 65536): use a whole number of MiB from 64 to 65536',
        'mcp.sandbox.limits.processes: too long (maximum 4096): use a whole number from 8 to 4096',
      ],
    ],
    [
      { memoryMiB: 100.5 },
      [
        'mcp.sandbox.limits.memoryMiB: expected int, got a number: use a whole number of MiB from 64 to 65536',
      ],
    ],
  ])('bounds the limits %j', (limits, expected) => {
    expect(problems(withSandbox({ limits }))).toEqual(expected);
  });

  it('refuses unknown fields of the block and of its parts', () => {
    expect(
      problems(
        withSandbox({ hosts: ['example.com'], filesystem: { exec: [] }, limits: { cpu: 1 } }),
      ),
    ).toEqual([
      'mcp.sandbox.filesystem.exec: unknown field: remove it or check its spelling',
      'mcp.sandbox.hosts: unknown field: remove it or check its spelling',
      'mcp.sandbox.limits.cpu: unknown field: remove it or check its spelling',
    ]);
  });

  it('refuses the block on a remote server as a field it does not have', () => {
    expect(problems({ ...base, mcp: { url: 'https://api.example.com/mcp', sandbox: {} } })).toEqual(
      ['mcp.sandbox: unknown field: remove it or check its spelling'],
    );
  });
});

describe('the published JSON Schema', () => {
  it('holds the sandbox block of a stdio server with its defaults and bounds', () => {
    const schema = manifestJsonSchema() as {
      properties: { mcp: { anyOf: { properties: Record<string, unknown> }[] } };
    };
    const [stdio, remote] = schema.properties.mcp.anyOf;
    const sandbox = stdio?.properties.sandbox;
    expect(remote?.properties).not.toHaveProperty('sandbox');
    expect(sandbox).toMatchObject({
      type: 'object',
      additionalProperties: false,
      properties: {
        filesystem: {
          properties: {
            read: { maxItems: 32, items: { type: 'string', pattern: '^~\\/[^\\0]+$' } },
            write: { maxItems: 32, items: { type: 'string', pattern: '^~\\/[^\\0]+$' } },
          },
        },
        network: { enum: ['none', 'host'], default: 'host' },
        env: { items: { pattern: '^[A-Za-z_][A-Za-z0-9_]*$' } },
        limits: {
          additionalProperties: false,
          properties: {
            memoryMiB: { type: 'integer', minimum: 64, maximum: 65_536 },
            processes: { type: 'integer', minimum: 8, maximum: 4096 },
          },
        },
      },
    });
  });
});
