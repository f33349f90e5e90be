/**
 * The MCP servers a newcomer installs first run isolated and offline: the official
 * `@modelcontextprotocol/server-memory`, `-filesystem`, `-everything` and
 * `-sequential-thinking`, each in a release that carries its dependencies (copied from
 * this repository's node_modules, nothing downloaded) and run by `node` from the release,
 * under `tuttid --sandbox required`, answer a `tools/call` through the `connector` server.
 * server-memory keeps its graph in its state folder (`MEMORY_FILE_PATH`, as
 * docs/connector-manifest.md shows); server-filesystem reaches the one home folder its
 * manifest declares and nothing beside it.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanUp, mcpRequest, tempHomes } from '@tutti/test-kit';
import { packageRelease } from '@tutti/test-kit/package-release';
import { startTuttid, stopAll, type TuttidProcess } from '@tutti/test-kit/tuttid';

const homes = tempHomes('tutti-sandbox-real-');
const require = createRequire(import.meta.url);
/** The packages, resolved here: each test below fails loudly when one is not installed. */
const PACKAGES = [
  require.resolve('@modelcontextprotocol/server-memory/package.json'),
  require.resolve('@modelcontextprotocol/server-filesystem/package.json'),
  require.resolve('@modelcontextprotocol/server-everything/package.json'),
  require.resolve('@modelcontextprotocol/server-sequential-thinking/package.json'),
];

afterEach(async () => {
  await stopAll();
  await homes.removeAll();
  await cleanUp();
});

function manifest(key: string, mcp: Record<string, unknown>) {
  return {
    key,
    name: key,
    description: `The official ${key} MCP server.`,
    version: '1.0.0',
    mcp,
    auth: { kind: 'none' },
  };
}

async function call(daemon: TuttidProcess, token: string, name: string, args: object) {
  const binding = { url: daemon.ready.mcpUrl, headers: { authorization: `Bearer ${token}` } };
  const { status, body } = await mcpRequest(binding, 'tools/call', { name, arguments: args });
  expect(status).toBe(200);
  return body.result as { isError?: boolean; content: { type: string; text: string }[] };
}

const text = (result: { content: { text: string }[] }) =>
  result.content.map((c) => c.text).join('');

describe('real MCP servers under isolation', () => {
  it('server-memory, -filesystem, -everything and -sequential-thinking answer tools/call, offline, under --sandbox required', async () => {
    expect(PACKAGES.every((path) => existsSync(path))).toBe(true);
    const user = await homes.make();
    await mkdir(join(user, 'project'));
    await writeFile(join(user, 'project', 'readme.md'), 'isolated and working');
    await writeFile(join(user, 'secret.txt'), 'not for the server');
    const home = await homes.make();
    const daemon = await startTuttid(home, ['--no-demo', '--sandbox', 'required'], {
      env: { HOME: user },
    });
    const releases = [
      await packageRelease({
        packageName: '@modelcontextprotocol/server-memory',
        // The default profile; the graph goes to the state folder, not next to its code.
        manifest: (entry) =>
          manifest('memory', {
            command: 'node',
            args: [entry],
            // biome-ignore lint/suspicious/noTemplateCurlyInString: the manifest's own placeholder
            env: { MEMORY_FILE_PATH: '${TUTTI_CONNECTOR_STATE_DIR}/memory.jsonl' },
          }),
      }),
      await packageRelease({
        packageName: '@modelcontextprotocol/server-filesystem',
        manifest: (entry) =>
          manifest('files', {
            command: 'node',
            args: [entry, join(user, 'project')],
            sandbox: { filesystem: { write: ['~/project'] }, network: 'none' },
          }),
      }),
      await packageRelease({
        packageName: '@modelcontextprotocol/server-everything',
        manifest: (entry) => manifest('everything', { command: 'node', args: [entry, 'stdio'] }),
      }),
      await packageRelease({
        packageName: '@modelcontextprotocol/server-sequential-thinking',
        manifest: (entry) =>
          manifest('thinking', { command: 'node', args: [entry], sandbox: { network: 'none' } }),
      }),
    ];
    for (const { dir } of releases) {
      const { body } = await daemon.control('POST', '/v1/connectors/install', {
        path: dir,
        wait: true,
      });
      expect({
        key: body.key,
        state: body.runtime.state,
        isolation: body.sandbox.isolation,
      }).toEqual({ key: body.key, state: 'ready', isolation: 'isolated' });
    }
    const { body: session } = await daemon.control('POST', '/v1/sessions', {
      workspaceId: 'ws',
      agentSessionId: 'real-servers',
      cwd: user,
    });
    const token = session.runtime.mcpServers[0].headers.Authorization.slice('Bearer '.length);

    const created = await call(daemon, token, 'memory_create_entities', {
      entities: [{ name: 'tutti', entityType: 'project', observations: ['runs isolated'] }],
    });
    expect(created.isError).not.toBe(true);
    expect(text(await call(daemon, token, 'memory_read_graph', {}))).toContain('runs isolated');
    const graph = await readFile(join(home, 'connector-data', 'memory', 'memory.jsonl'), 'utf8');
    expect(graph).toContain('tutti');

    const read = await call(daemon, token, 'files_read_text_file', {
      path: join(user, 'project', 'readme.md'),
    });
    expect(text(read)).toBe('isolated and working');
    const written = await call(daemon, token, 'files_write_file', {
      path: join(user, 'project', 'notes.md'),
      content: 'written from the sandbox',
    });
    expect(written.isError).not.toBe(true);
    expect(await readFile(join(user, 'project', 'notes.md'), 'utf8')).toBe(
      'written from the sandbox',
    );
    // Outside its folder the server refuses by its own rule (the sandbox hides the file too).
    const outside = await call(daemon, token, 'files_read_text_file', {
      path: join(user, 'secret.txt'),
    });
    expect(outside.isError).toBe(true);

    expect(text(await call(daemon, token, 'everything_echo', { message: 'hello' }))).toContain(
      'hello',
    );

    const thought = await call(daemon, token, 'thinking_sequentialthinking', {
      thought: 'Isolation holds.',
      thoughtNumber: 1,
      totalThoughts: 1,
      nextThoughtNeeded: false,
    });
    expect(thought.isError).not.toBe(true);
    expect(JSON.parse(text(thought))).toMatchObject({ thoughtNumber: 1, nextThoughtNeeded: false });
  });
});
