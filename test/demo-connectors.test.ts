/**
 * The demo connectors of `cli/demo-connectors` are valid releases that really work: the
 * notes MCP server answers a real SDK v2 client over stdio, the hello CLI forwards
 * arguments, stdin, stdout, stderr and exit codes.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { openStore, readManifest, resolveReleasePaths } from '@tutti/core';
import { afterEach, describe, expect, it } from 'vitest';

const demos = fileURLToPath(new URL('../cli/demo-connectors/', import.meta.url));
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

  it('notes serves add_note, list_notes and delete_note to an MCP client over stdio', async () => {
    const data = await tempDir();
    const manifest = await readManifest(join(demos, 'notes'));
    const mcp = resolveReleasePaths(manifest, join(demos, 'notes')).mcp;
    if (mcp?.transport !== 'stdio') throw new Error('notes declares a stdio MCP server');
    const notesFile = join(data, 'notes.json');
    const transport = new StdioClientTransport({
      command: mcp.command,
      args: [...mcp.args],
      env: { PATH: process.env.PATH ?? '', HOME: data, NOTES_FILE: notesFile },
      stderr: 'pipe',
    });
    const client = new Client({ name: 'demo-test', version: '1.0.0' });
    await client.connect(transport);
    cleanups.push(() => client.close());

    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'add_note',
      'delete_note',
      'list_notes',
    ]);

    const added = await client.callTool({
      name: 'add_note',
      arguments: { text: 'Ship the store on Friday', tags: ['release'] },
    });
    const note = added.structuredContent as { id: string; text: string; tags: string[] };
    expect(note).toMatchObject({ text: 'Ship the store on Friday', tags: ['release'] });
    await client.callTool({ name: 'add_note', arguments: { text: 'Buy milk' } });

    const byTag = await client.callTool({ name: 'list_notes', arguments: { tag: 'release' } });
    expect((byTag.structuredContent as { notes: unknown[] }).notes).toEqual([note]);
    const byWord = await client.callTool({ name: 'list_notes', arguments: { query: 'MILK' } });
    expect(
      (byWord.structuredContent as { notes: { text: string }[] }).notes.map((n) => n.text),
    ).toEqual(['Buy milk']);

    const deleted = await client.callTool({ name: 'delete_note', arguments: { id: note.id } });
    expect(deleted.structuredContent).toEqual({ deleted: true });
    const saved = JSON.parse(await readFile(notesFile, 'utf8'));
    expect(saved.notes.map((n: { text: string }) => n.text)).toEqual(['Buy milk']);
  });
});
