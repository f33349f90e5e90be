/**
 * A download server that lies, dies, hangs or floods: each ends the download with
 * TUTTI_ERR_AGENT_DOWNLOAD_FAILED saying why, and nothing waits on it.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isTuttiError } from '../errors/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadToFile, fetchBytes } from './download.js';

let server: Server;
let base: string;
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tutti-download-faults-'));
  server = createServer((request, response) => {
    switch (request.url) {
      case '/error':
        response.writeHead(500).end('broken');
        return;
      case '/flood':
        response.writeHead(200);
        response.write(Buffer.alloc(64 * 1024));
        response.end(Buffer.alloc(64 * 1024));
        return;
      case '/dies':
        response.writeHead(200, { 'content-length': '100000' });
        response.write(Buffer.alloc(1000), () => response.socket?.destroy());
        return;
      case '/stalls':
        // Headers and a first chunk, then nothing, for as long as the client waits.
        response.writeHead(200);
        response.write('a');
        return;
      case '/silent':
        // Never answers at all.
        return;
      default:
        response.writeHead(200).end('ok');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await rm(dir, { recursive: true, force: true });
});

/** The refusal `download` ends with: its reason. */
async function reasonOf(download: Promise<unknown>): Promise<string> {
  const error = await download.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(isTuttiError(error, 'TUTTI_ERR_AGENT_DOWNLOAD_FAILED'), String(error)).toBe(true);
  return String((error as { details: { reason: string } }).details.reason);
}

describe('a download server that misbehaves', () => {
  it('says what the server answered when it answers an error', async () => {
    expect(await reasonOf(fetchBytes(new URL(`${base}/error`)))).toBe(
      'the server answered HTTP 500',
    );
  });

  it('refuses a body past the cap, into a file or into memory', async () => {
    const url = new URL(`${base}/flood`);
    const file = join(dir, 'flood');
    expect(await reasonOf(downloadToFile(url, file, { maxBytes: 100_000 }))).toBe(
      'it is larger than 100000 bytes',
    );
    expect(await reasonOf(fetchBytes(url, { maxBytes: 100_000 }))).toBe(
      'it is larger than 100000 bytes',
    );
  });

  it('says the connection broke off when the server dies mid-body', async () => {
    const file = join(dir, 'dies');
    expect(await reasonOf(downloadToFile(new URL(`${base}/dies`), file))).toBe(
      'the connection broke off',
    );
  });

  it('gives up on a server that stops sending, or never answers', async () => {
    const idle = { idleMs: 300 };
    expect(await reasonOf(downloadToFile(new URL(`${base}/stalls`), join(dir, 's'), idle))).toBe(
      'the server sent nothing for 300 ms',
    );
    expect(await reasonOf(fetchBytes(new URL(`${base}/silent`), idle))).toBe(
      'the server sent nothing for 300 ms',
    );
    expect(await reasonOf(fetchBytes(new URL(`${base}/silent`), { totalMs: 300 }))).toBe(
      'it timed out',
    );
  });
});
