/**
 * A loopback npm registry that serves the packages already installed on this machine, so
 * npm can install real agents with no network. It indexes every package folder under the
 * given `node_modules` folders (scoped and nested ones too) by name and version, answers a
 * packument per name and streams each version as an uncompressed tarball (`package/...`,
 * the folder without its own `node_modules`; npm's tar reader takes it as well as gzip).
 * No `dist.integrity` is given: npm computes one from what it receives. An unknown name is
 * a 404, which npm skips for an optional dependency (the other platforms' binaries).
 * An installed folder is served as it is now, after its install scripts ran: where a script
 * changed the package's files (opencode-ai puts its binary in place of a stub), pass the
 * package as published in `packages`.
 *
 * Point npm at it with `npm_config_registry=<url>/` and a fresh `npm_config_cache`.
 *
 * @example
 * const mirror = await startNpmMirror({ nodeModules: [join(REPO_ROOT, 'node_modules')] });
 * // npm install --prefix <dir> with env npm_config_registry: `${mirror.url}/`
 * await mirror.close();
 */
import { once } from 'node:events';
import { createReadStream } from 'node:fs';
import { lstat, readdir, readFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

/** A running mirror. */
export interface NpmMirror {
  /** `http://127.0.0.1:<port>`, no trailing slash. */
  url: string;
  /** Every request path in arrival order (decoded), e.g. `/@scope/name`, `/name/-/name-1.0.0.tgz`. */
  requests: string[];
  close(): Promise<void>;
}

export interface NpmMirrorOptions {
  /** `node_modules` folders to index, recursively (nested `node_modules` too). */
  nodeModules: string[];
  /**
   * Extra package folders (each holding a package.json), e.g. a fixture agent. They come
   * first: one replaces an installed folder of the same name and version (say, a package as
   * published, before its install script changed its files).
   */
  packages?: string[];
}

interface Installed {
  folder: string;
  manifest: Record<string, unknown>;
}

/** One file of a tarball: its path under `package/`, where it is read from, size and mode. */
interface TarFile {
  path: string;
  source: string;
  size: number;
  mode: number;
}

/** Starts the mirror on 127.0.0.1 with an OS-chosen port. */
export async function startNpmMirror(options: NpmMirrorOptions): Promise<NpmMirror> {
  const index = new Map<string, Map<string, Installed>>();
  for (const folder of options.packages ?? []) await indexPackage(index, folder);
  for (const nodeModules of options.nodeModules) await indexNodeModules(index, nodeModules);
  const listings = new Map<string, Promise<TarFile[]>>();
  const requests: string[] = [];
  let url = '';

  const server = createServer((request, response) => {
    const path = decodeURIComponent((request.url ?? '/').split('?')[0] ?? '/');
    requests.push(path);
    answer(path, request, response).catch((error: unknown) => {
      if (!response.headersSent) sendJson(response, 500, { error: String(error) });
      else response.destroy();
    });
  });

  async function answer(path: string, request: IncomingMessage, response: ServerResponse) {
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      return sendJson(response, 405, { error: 'method not allowed' });
    }
    const tarball = /^\/((?:@[^/]+\/)?[^/@][^/]*)\/-\/(.+)\.tgz$/.exec(path);
    if (tarball) {
      const [, name = '', file = ''] = tarball;
      const base = name.slice(name.lastIndexOf('/') + 1);
      const version = file.startsWith(`${base}-`) ? file.slice(base.length + 1) : '';
      const installed = index.get(name)?.get(version);
      if (!installed) return sendJson(response, 404, { error: 'not found' });
      let listing = listings.get(installed.folder);
      if (!listing) {
        listing = listTarFiles(installed);
        listings.set(installed.folder, listing);
      }
      return sendTar(response, await listing, request.method === 'HEAD');
    }
    const versions = index.get(path.slice(1));
    if (!versions) return sendJson(response, 404, { error: 'not found' });
    sendJson(response, 200, packument(path.slice(1), versions, url));
  }

  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    requests,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

async function indexNodeModules(index: Map<string, Map<string, Installed>>, nodeModules: string) {
  const entries = await readdir(nodeModules, { withFileTypes: true }).catch(() => []);
  await Promise.all(
    entries.map(async (entry) => {
      if (entry.name.startsWith('.')) return; // .bin, .package-lock.json, .cache
      const folder = join(nodeModules, entry.name);
      if (!entry.name.startsWith('@')) return indexTree(index, folder);
      if (!entry.isDirectory()) return;
      const scoped = await readdir(folder, { withFileTypes: true }).catch(() => []);
      await Promise.all(scoped.map((inner) => indexTree(index, join(folder, inner.name))));
    }),
  );
}

/** A real package folder (not a symlinked workspace) and the `node_modules` nested in it. */
async function indexTree(index: Map<string, Map<string, Installed>>, folder: string) {
  const stat = await lstat(folder).catch(() => undefined);
  if (!stat?.isDirectory()) return;
  await indexPackage(index, folder);
  await indexNodeModules(index, join(folder, 'node_modules'));
}

async function indexPackage(index: Map<string, Map<string, Installed>>, folder: string) {
  const text = await readFile(join(folder, 'package.json'), 'utf8').catch(() => undefined);
  if (text === undefined) return;
  let manifest: Record<string, unknown>;
  try {
    manifest = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return;
  }
  const { name, version } = manifest;
  if (typeof name !== 'string' || typeof version !== 'string') return;
  let versions = index.get(name);
  if (!versions) {
    versions = new Map();
    index.set(name, versions);
  }
  if (!versions.has(version)) versions.set(version, { folder, manifest });
}

function packument(name: string, versions: Map<string, Installed>, url: string) {
  const base = name.slice(name.lastIndexOf('/') + 1);
  const entries = [...versions.entries()].map(([version, { manifest }]) => [
    version,
    { ...manifest, dist: { tarball: `${url}/${name}/-/${base}-${version}.tgz` } },
  ]);
  const latest = [...versions.keys()].sort(compareVersions).at(-1);
  return { name, 'dist-tags': { latest }, versions: Object.fromEntries(entries) };
}

/** Semver order, enough to pick `latest`: numbers first, a prerelease before its release. */
function compareVersions(a: string, b: string): number {
  const [coreA = '', preA] = a.split(/-(.*)/s);
  const [coreB = '', preB] = b.split(/-(.*)/s);
  const numbersA = coreA.split('.').map(Number);
  const numbersB = coreB.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const diff = (numbersA[i] ?? 0) - (numbersB[i] ?? 0);
    if (diff !== 0) return diff;
  }
  if (preA === preB) return 0;
  if (preA === undefined) return 1;
  if (preB === undefined) return -1;
  return preA < preB ? -1 : 1;
}

/** The package's regular files, without its own `node_modules` except bundled dependencies. */
async function listTarFiles({ folder, manifest }: Installed): Promise<TarFile[]> {
  const bundled = manifest.bundleDependencies ?? manifest.bundledDependencies;
  const keep = new Set(Array.isArray(bundled) ? bundled.map((dep) => `node_modules/${dep}`) : []);
  const files: TarFile[] = [];
  async function walk(relative: string) {
    const entries = await readdir(join(folder, relative), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : 1));
    for (const entry of entries) {
      const path = relative ? `${relative}/${entry.name}` : entry.name;
      if (path === 'node_modules') {
        for (const dep of keep) await walk(dep).catch(() => undefined);
      } else if (entry.isDirectory()) {
        await walk(path);
      } else if (entry.isFile()) {
        const stat = await lstat(join(folder, path));
        files.push({ path, source: join(folder, path), size: stat.size, mode: stat.mode & 0o777 });
      } // npm drops links from tarballs; so does the mirror
    }
  }
  await walk('');
  return files;
}

async function sendTar(response: ServerResponse, files: TarFile[], headOnly: boolean) {
  const headers = files.map((file) => tarHeader(`package/${file.path}`, file.size, file.mode));
  let length = 1024; // two zero blocks end the archive
  for (const [i, file] of files.entries()) length += (headers[i]?.length ?? 0) + padded(file.size);
  response.writeHead(200, {
    'content-type': 'application/octet-stream',
    'content-length': String(length),
  });
  if (headOnly) return void response.end();
  for (const [i, file] of files.entries()) {
    await write(response, headers[i] ?? Buffer.alloc(0));
    let sent = 0;
    if (file.size <= 1 << 20) {
      const content = await readFile(file.source);
      sent = content.length;
      await write(response, content);
    } else {
      for await (const chunk of createReadStream(file.source, { highWaterMark: 1 << 20 })) {
        sent += (chunk as Buffer).length;
        await write(response, chunk as Buffer);
      }
    }
    if (sent !== file.size) throw new Error(`${file.source} changed size while being served`);
    const padding = padded(file.size) - file.size;
    if (padding > 0) await write(response, Buffer.alloc(padding));
  }
  await write(response, Buffer.alloc(1024));
  response.end();
}

/** Writes `chunk`, waiting for the client to drain (or go away) when its buffer is full. */
async function write(response: ServerResponse, chunk: Buffer) {
  if (response.destroyed) throw new Error('the client went away');
  if (response.write(chunk)) return;
  await new Promise<void>((resolve) => {
    const done = () => {
      response.off('drain', done);
      response.off('close', done);
      resolve();
    };
    response.on('drain', done);
    response.on('close', done);
  });
}

function padded(size: number): number {
  return Math.ceil(size / 512) * 512;
}

/** A ustar header for a regular file, preceded by a pax `path` record when the path is long. */
function tarHeader(path: string, size: number, mode: number): Buffer {
  const bytes = Buffer.byteLength(path);
  if (bytes <= 100) return ustarBlock(path, '', size, mode, '0');
  const cut = path.lastIndexOf('/', 155);
  if (
    cut > 0 &&
    Buffer.byteLength(path.slice(0, cut)) <= 155 &&
    Buffer.byteLength(path.slice(cut + 1)) <= 100
  ) {
    return ustarBlock(path.slice(cut + 1), path.slice(0, cut), size, mode, '0');
  }
  const body = paxRecord('path', path);
  const pax = Buffer.concat([
    ustarBlock('PaxHeader', '', body.length, 0o644, 'x'),
    body,
    Buffer.alloc(padded(body.length) - body.length),
  ]);
  return Buffer.concat([
    pax,
    ustarBlock(path.slice(-100).replace(/^[^/]*\//, ''), '', size, mode, '0'),
  ]);
}

function paxRecord(key: string, value: string): Buffer {
  const rest = ` ${key}=${value}\n`;
  let length = Buffer.byteLength(rest) + 1;
  while (String(length).length + Buffer.byteLength(rest) !== length) length += 1;
  return Buffer.from(`${length}${rest}`);
}

function ustarBlock(
  name: string,
  prefix: string,
  size: number,
  mode: number,
  type: string,
): Buffer {
  const block = Buffer.alloc(512);
  block.write(name, 0, 100);
  block.write(octal(mode, 7), 100);
  block.write(octal(0, 7), 108);
  block.write(octal(0, 7), 116);
  block.write(octal(size, 11), 124);
  block.write(octal(0, 11), 136);
  block.write('        ', 148); // checksum placeholder
  block.write(type, 156);
  block.write('ustar\u000000', 257);
  block.write(prefix, 345, 155);
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${octal(sum, 6)} `, 148);
  return block;
}

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width, '0')}\u0000`.slice(-(width + 1));
}

function sendJson(response: ServerResponse, status: number, body: unknown) {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': String(Buffer.byteLength(text)),
  });
  response.end(text);
}
