import { describe, expect, it } from 'vitest';
import { isTuttiError } from '../errors/index.js';
import { parseManifest, validateManifest } from './read-manifest.js';

const base = {
  key: 'github',
  name: 'GitHub',
  description: 'Repository and issue operations.',
  version: '1.0.0',
  mcp: { command: 'node', args: ['./server.mjs'] },
};

/** The `path: problem: fix` lines for `value`, or [] when it is valid. */
function problems(value: unknown): string[] {
  const result = validateManifest(value);
  return result.ok ? [] : result.issues.map((i) => `${i.path}: ${i.problem}: ${i.fix}`);
}

describe('manifest validation', () => {
  it('accepts a minimal stdio manifest and fills the defaults', () => {
    const manifest = parseManifest(base, 'inline');
    expect(manifest.auth).toEqual({ kind: 'none' });
    expect(manifest.mcp).toEqual({ command: 'node', args: ['./server.mjs'], env: {} });
  });

  it('names the missing MCP command and says how to fix it', () => {
    expect(problems({ ...base, mcp: {} })).toEqual([
      'mcp.command: required: set the command that starts the MCP server',
    ]);
  });

  it.each([['Github'], ['git_hub'], ['-github'], [''], ['a'.repeat(33)]])(
    'rejects the key %j with the key rule as the fix',
    (key) => {
      expect(problems({ ...base, key })).toEqual([
        'key: must match [a-z0-9][a-z0-9-]{0,31}: use 1-32 lowercase letters, digits or "-", starting with a letter or digit (no "_")',
      ]);
    },
  );

  it('accepts keys of digits, dashes and 32 characters', () => {
    expect(problems({ ...base, key: '9-lives' })).toEqual([]);
    expect(problems({ ...base, key: 'a'.repeat(32) })).toEqual([]);
  });

  it('reports every missing top-level field at once', () => {
    expect(problems({ mcp: base.mcp })).toEqual([
      'description: required: say in one sentence (1-1000 characters) what the connector does',
      'key: required: use 1-32 lowercase letters, digits or "-", starting with a letter or digit (no "_")',
      'name: required: set a short display name (1-64 characters)',
      'version: required: set the release version as a semantic version, e.g. "1.2.0"',
    ]);
  });

  it('says what type a field has when it has the wrong one', () => {
    expect(problems({ ...base, name: 42 })).toEqual([
      'name: expected string, got a number: set a short display name (1-64 characters)',
    ]);
    expect(problems({ ...base, mcp: { command: 'node', args: 'server.mjs' } })).toEqual([
      'mcp.args: expected array, got a string: list the arguments as an array of strings',
    ]);
  });

  it('takes mcp.serializeCalls as a boolean, for a stdio server and a remote one', () => {
    expect(problems({ ...base, mcp: { ...base.mcp, serializeCalls: true } })).toEqual([]);
    const remote = { url: 'https://mcp.example.com/mcp', serializeCalls: false };
    expect(problems({ ...base, mcp: remote })).toEqual([]);
    expect(problems({ ...base, mcp: { ...base.mcp, serializeCalls: 'yes' } })).toHaveLength(1);
  });

  it('rejects an empty name and a version that is not semantic', () => {
    expect(problems({ ...base, name: '', version: 'one' })).toEqual([
      'name: must not be empty: set a short display name (1-64 characters)',
      'version: must be a semantic version: set the release version as a semantic version, e.g. "1.2.0"',
    ]);
    expect(problems({ ...base, version: '2.0.0-beta.1+build.5' })).toEqual([]);
  });

  it('rejects unknown fields by name', () => {
    expect(problems({ ...base, homepage: 'x', mcp: { command: 'node', cwd: '/' } })).toEqual([
      'homepage: unknown field: remove it or check its spelling',
      'mcp.cwd: unknown field: remove it or check its spelling',
    ]);
  });

  it('rejects "./" paths that leave the release', () => {
    expect(problems({ ...base, mcp: { command: './bin/../../x' } })).toEqual([
      'mcp.command: a "./" path must stay inside the release (no ".." that leaves it): set the command that starts the MCP server',
    ]);
    expect(problems({ ...base, mcp: { command: 'node', args: ['./../x.mjs'] } })).toEqual([
      'mcp.args[0]: a "./" path must stay inside the release (no ".." that leaves it): use a non-empty string; "./" paths must stay inside the release',
    ]);
    expect(problems({ ...base, mcp: undefined, cli: { command: '../x' } })).toEqual([
      'cli.command: a command may not point outside the release with "../": set the command that runs the CLI, e.g. "./bin/hello.mjs"',
    ]);
    expect(problems({ ...base, mcp: { command: './bin/../server.mjs' } })).toEqual([]);
    expect(problems({ ...base, mcp: { command: 'bin/../../server.mjs' } })).toEqual([
      'mcp.command: a relative command is inside the release and may not leave it with "..": set the command that starts the MCP server',
    ]);
    expect(problems({ ...base, mcp: { command: 'bin/server.mjs' } })).toEqual([]);
  });

  it('rejects environment names that a process cannot carry', () => {
    expect(problems({ ...base, mcp: { command: 'node', env: { 'BAD-NAME': 'x' } } })).toEqual([
      'mcp.env.BAD-NAME: an environment variable name is [A-Za-z_][A-Za-z0-9_]*: map environment variable names to string values',
    ]);
  });

  it('accepts a remote endpoint over https or loopback http and rejects other urls', () => {
    const remote = (mcp: unknown) => problems({ ...base, mcp });
    expect(remote({ url: 'https://api.example.com/mcp', protocol: '2026-07-28' })).toEqual([]);
    expect(remote({ url: 'http://127.0.0.1:8080/mcp' })).toEqual([]);
    expect(remote({ url: 'http://example.com/mcp' })).toEqual([
      'mcp.url: plain http is allowed only for 127.0.0.1, localhost or [::1]: set the https URL of the remote Streamable HTTP endpoint',
    ]);
    expect(remote({ url: 'not a url' })).toEqual([
      'mcp.url: not a valid URL: set the https URL of the remote Streamable HTTP endpoint',
    ]);
    expect(remote({ url: 'https://x.example/mcp', protocol: '2024-11-05' })).toEqual([
      'mcp.protocol: must be one of "2025-06-18", "2026-07-28": use "2025-06-18" or "2026-07-28", or remove it to negotiate',
    ]);
  });

  it('rejects a manifest that declares no mcp, cli or skills', () => {
    expect(problems({ ...base, mcp: undefined })).toEqual([
      '(manifest): declares nothing to use: declare at least one of "mcp", "cli" or "skills"',
    ]);
    expect(problems({ ...base, mcp: undefined, skills: 'skills' })).toEqual([]);
  });

  it('rejects a skills folder outside the release', () => {
    for (const skills of ['/etc', '../shared']) {
      expect(problems({ ...base, skills })).toEqual([
        'skills: must be a folder inside the release: name a folder inside the release that holds <skill>/SKILL.md',
      ]);
    }
  });

  it('rejects a missing or unknown auth kind', () => {
    expect(problems({ ...base, auth: {} })).toEqual([
      'auth.kind: required: use "none", "api_key" or "oauth2"',
    ]);
    expect(problems({ ...base, auth: { kind: 'password' } })).toEqual([
      'auth.kind: unknown value "password": use "none", "api_key" or "oauth2"',
    ]);
  });

  it('requires the env name of a credential for a stdio server or a CLI', () => {
    expect(problems({ ...base, auth: { kind: 'api_key' } })).toEqual([
      'auth.env: required for a stdio MCP server or a CLI: name the environment variable that carries the credential',
    ]);
    expect(
      problems({ ...base, mcp: undefined, cli: { command: 'x' }, auth: { kind: 'oauth2' } }),
    ).toEqual([
      'auth.env: required for a stdio MCP server or a CLI: name the environment variable that carries the credential',
    ]);
    expect(problems({ ...base, auth: { kind: 'api_key', env: 'GH_TOKEN' } })).toEqual([]);
  });

  it('requires the header of an api key for a remote server, but not of an oauth2 token', () => {
    const mcp = { url: 'https://api.example.com/mcp' };
    expect(problems({ ...base, mcp, auth: { kind: 'api_key' } })).toEqual([
      'auth.header: required for a remote MCP server: name the HTTP header that carries the key, e.g. "Authorization"',
    ]);
    expect(problems({ ...base, mcp, auth: { kind: 'api_key', header: 'X Key' } })).toEqual([
      'auth.header: a header name is an HTTP token, e.g. "X-Api-Key": name the HTTP header that carries the key, e.g. "Authorization"',
    ]);
    expect(problems({ ...base, mcp, auth: { kind: 'oauth2' } })).toEqual([]);
  });

  it('throws one TuttiError that names the source and lists every problem', () => {
    let caught: unknown;
    try {
      parseManifest({ ...base, key: 'X', mcp: {} }, 'releases/gh/tutti-connector.json');
    } catch (error) {
      caught = error;
    }
    expect(isTuttiError(caught, 'TUTTI_ERR_MANIFEST_INVALID')).toBe(true);
    expect((caught as Error).message).toBe(
      'Connector manifest "releases/gh/tutti-connector.json" is not valid: ' +
        'key: must match [a-z0-9][a-z0-9-]{0,31}: use 1-32 lowercase letters, digits or "-", starting with a letter or digit (no "_"); ' +
        'mcp.command: required: set the command that starts the MCP server.',
    );
  });

  it('throws TUTTI_ERR_MANIFEST_INVALID_JSON naming the source for text that is not JSON', () => {
    expect(() => parseManifest('{"key": "x",', 'my/tutti-connector.json')).toThrow(
      /^Connector manifest "my\/tutti-connector.json" is not valid JSON \(.+\): fix its syntax\.$/,
    );
  });

  it('rejects a manifest that is not an object', () => {
    expect(problems([])).toEqual(['(manifest): expected object, got an array: fix the manifest']);
  });
});
