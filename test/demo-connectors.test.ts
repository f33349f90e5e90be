/**
 * The demo connectors of `cli/demo-connectors` are valid releases that really work once
 * installed into a tutti home, outside this repository: the dependency-free notes MCP server
 * answers a real SDK v2 client over stdio, the hello CLI forwards arguments, stdin, stdout,
 * stderr and exit codes.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { openStore, readManifest, resolveReleasePaths } from '@tutti/core/internal';
import { afterEach, describe, expect, it } from 'vitest';

const repo = fileURLToPath(new URL('..', import.meta.url));
const demos = join(repo, 'cli/demo-connectors');
const cleanups: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tutti-demo-'));
  cleanups.push(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** Runs the hello CLI of the release at `releaseDir`; resolves its output and exit code. */
async function hello(releaseDir: string, args: string[], stdin = '') {
  const manifest = await readManifest(releaseDir);
  const cli = resolveReleasePaths(manifest, releaseDir).cli!;
  const child = spawn(cli.command, [...cli.args, ...args], { stdio: 'pipe' });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  child.stdin.end(stdin);
  const code = await new Promise<number | null>((done) => child.on('close', done));
  return { stdout, stderr, code };
}

describe('demo connectors', () => {
  it('are valid releases that install into a store', async () => {
    const store = await openStore(await tempDir());
    const notes = await store.install(join(demos, 'notes'));
    const helloRelease = await store.install(join(demos, 'hello'));
    expect(notes).toMatchObject({ key: 'notes', skills: ['notes'] });
    expect(helloRelease).toMatchObject({ key: 'hello', skills: ['hello'] });
    expect(helloRelease.paths.cli?.command).toBe(join(helloRelease.releaseDir, 'bin/hello.mjs'));
  });

  it('hello forwards arguments, stdin, stdout, stderr and the exit code, also when installed', async () => {
    const store = await openStore(await tempDir());
    const installed = await store.install(join(demos, 'hello'));
    expect(await hello(installed.releaseDir, ['greet', 'Ada', 'Lovelace', '--shout'])).toEqual({
      stdout: 'HELLO, ADA LOVELACE!\n',
      stderr: '',
      code: 0,
    });
    expect((await hello(installed.releaseDir, ['cat'], 'line 1\nline 2\n')).stdout).toBe(
      'line 1\nline 2\n',
    );
    expect(await hello(installed.releaseDir, ['exit', '7', 'went', 'wrong'])).toEqual({
      stdout: '',
      stderr: 'went wrong\n',
      code: 7,
    });
  });

  it('notes serves its tools to an SDK client when started from its installed release folder', async () => {
    const home = await tempDir();
    const installed = await openStore(home).then((store) => store.install(join(demos, 'notes')));
    // The release lives in the temp home, far from this repository's node_modules.
    expect(installed.releaseDir.startsWith(join(home, 'releases'))).toBe(true);
    expect(relative(repo, installed.releaseDir).startsWith('..')).toBe(true);
    const mcp = installed.paths.mcp;
    if (mcp?.transport !== 'stdio') throw new Error('notes declares a stdio MCP server');
    const client = new Client({ name: 'demo-test', version: '1.0.0' });
    await client.connect(
      new StdioClientTransport({
        command: mcp.command,
        args: [...mcp.args],
        cwd: installed.releaseDir,
        env: { PATH: process.env.PATH ?? '', HOME: home, TUTTI_HOME: home },
        stderr: 'pipe',
      }),
    );
    cleanups.push(() => client.close());
    expect(client.getServerVersion()).toMatchObject({ name: 'notes' });

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['add_note', 'list_notes', 'delete_note']);
    expect(tools[0]?.inputSchema).toMatchObject({ type: 'object', required: ['text'] });

    const added = await client.callTool({
      name: 'add_note',
      arguments: { text: 'Ship the store on Friday', tags: ['release'] },
    });
    const note = added.structuredContent as { id: string; text: string; tags: string[] };
    expect(note).toMatchObject({ text: 'Ship the store on Friday', tags: ['release'] });
    expect(JSON.parse((added.content as { text: string }[])[0]!.text)).toEqual(note);
    await client.callTool({ name: 'add_note', arguments: { text: 'Buy milk' } });

    const byTag = await client.callTool({ name: 'list_notes', arguments: { tag: 'release' } });
    expect((byTag.structuredContent as { notes: unknown[] }).notes).toEqual([note]);
    const byWord = await client.callTool({ name: 'list_notes', arguments: { query: 'MILK' } });
    expect(
      (byWord.structuredContent as { notes: { text: string }[] }).notes.map((n) => n.text),
    ).toEqual(['Buy milk']);

    const deleted = await client.callTool({ name: 'delete_note', arguments: { id: note.id } });
    expect(deleted.structuredContent).toEqual({ deleted: true });
    const again = await client.callTool({ name: 'delete_note', arguments: { id: note.id } });
    expect(again.structuredContent).toEqual({ deleted: false });
    const saved = JSON.parse(await readFile(join(home, 'data', 'notes.json'), 'utf8'));
    expect(saved.notes.map((n: { text: string }) => n.text)).toEqual(['Buy milk']);

    const invalid = await client.callTool({ name: 'add_note', arguments: { text: '', tags: [3] } });
    expect(invalid.isError).toBe(true);
    expect((invalid.content as { text: string }[])[0]!.text).toBe(
      'Invalid arguments for add_note:\n- text must have at least 1 character(s)\n- tags[0] must be a string',
    );
    await expect(client.callTool({ name: 'rename_note', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: expect.stringContaining('Unknown tool: rename_note'),
    });
  });

  it('notes answers malformed lines, unknown methods and old protocol versions as JSON-RPC says', async () => {
    const home = await tempDir();
    const installed = await openStore(home).then((store) => store.install(join(demos, 'notes')));
    const mcp = installed.paths.mcp;
    if (mcp?.transport !== 'stdio') throw new Error('notes declares a stdio MCP server');
    const child = spawn(mcp.command, [...mcp.args], {
      cwd: installed.releaseDir,
      env: { PATH: process.env.PATH ?? '', HOME: home, TUTTI_HOME: home },
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    cleanups.push(async () => {
      if (child.exitCode === null) child.kill();
    });
    const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    const ask = async (line: string) => {
      child.stdin.write(`${line}\n`);
      return JSON.parse((await lines.next()).value as string);
    };
    const initialize = (protocolVersion: string) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: { protocolVersion, capabilities: {}, clientInfo: { name: 't', version: '1' } },
      });

    expect((await ask(initialize('2024-11-05'))).result).toMatchObject({
      protocolVersion: '2024-11-05',
      capabilities: { tools: { listChanged: false } },
    });
    expect((await ask(initialize('1999-01-01'))).result.protocolVersion).toBe('2025-06-18');
    child.stdin.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    expect(await ask('{"jsonrpc":"2.0","id":2,')).toMatchObject({
      id: null,
      error: { code: -32700 },
    });
    expect(await ask('{"jsonrpc":"2.0","id":3,"method":"prompts/list"}')).toMatchObject({
      id: 3,
      error: { code: -32601 },
    });
    expect(await ask('{"jsonrpc":"2.0","id":4,"method":"ping"}')).toEqual({
      jsonrpc: '2.0',
      id: 4,
      result: {},
    });
  });
});
