/**
 * `.tar.gz` fixtures written by hand (ustar headers), so a test can build the hostile
 * archives no archiver makes on purpose: a `../` path, an absolute path, a symbolic or hard
 * link, a FIFO, a file with any mode. Paths go in as given (no normalization).
 *
 * @example
 * const tgz = tarGz([
 *   { path: 'bin/', type: 'dir' },
 *   { path: 'bin/agent', content: '#!/bin/sh\necho hi\n', mode: 0o755 },
 *   { path: 'evil', type: 'symlink', linkpath: '/etc/passwd' },
 * ]);
 */
import { gzipSync } from 'node:zlib';

/** One entry of a fixture archive. */
export interface TarEntry {
  /** The path exactly as the header holds it (at most 255 bytes: prefix and name). */
  readonly path: string;
  /** A file's bytes (`body` is the same). */
  readonly content?: Buffer | string;
  readonly body?: Buffer | string;
  /** `file` unless said. */
  readonly type?: 'file' | 'dir' | 'symlink' | 'link' | 'fifo';
  /** The target of a link. */
  readonly linkpath?: string;
  /** The mode bits; 0o644 for files, 0o755 for folders unless said. */
  readonly mode?: number;
}

const TYPE_FLAG = { file: '0', link: '1', symlink: '2', dir: '5', fifo: '6' } as const;

function octal(value: number, width: number): string {
  return `${value.toString(8).padStart(width - 1, '0')}\0`;
}

function splitPath(path: string): { name: string; prefix: string } {
  if (Buffer.byteLength(path) <= 100) return { name: path, prefix: '' };
  const cut = path.lastIndexOf('/', 155);
  if (cut > 0 && Buffer.byteLength(path.slice(cut + 1)) <= 100) {
    return { name: path.slice(cut + 1), prefix: path.slice(0, cut) };
  }
  throw new Error(`tar fixture: the path is too long for a ustar header: ${path}`);
}

function header(entry: TarEntry, size: number): Buffer {
  const type = entry.type ?? 'file';
  const block = Buffer.alloc(512);
  const { name, prefix } = splitPath(entry.path);
  block.write(name, 0, 100, 'utf8');
  block.write(octal(entry.mode ?? (type === 'dir' ? 0o755 : 0o644), 8), 100, 'latin1');
  block.write(octal(0, 8), 108, 'latin1');
  block.write(octal(0, 8), 116, 'latin1');
  block.write(octal(size, 12), 124, 'latin1');
  block.write(octal(0, 12), 136, 'latin1');
  block.write('        ', 148, 'latin1');
  block.write(TYPE_FLAG[type], 156, 'latin1');
  block.write(entry.linkpath ?? '', 157, 100, 'utf8');
  block.write('ustar\u000000', 257, 'latin1');
  block.write(prefix, 345, 155, 'utf8');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148, 'latin1');
  return block;
}

/** Writes `entries` as a gzipped tar archive, in order. */
export function tarGz(entries: readonly TarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const raw = entry.content ?? entry.body;
    const body =
      (entry.type ?? 'file') === 'file' && raw !== undefined
        ? Buffer.isBuffer(raw)
          ? raw
          : Buffer.from(raw)
        : Buffer.alloc(0);
    blocks.push(header(entry, body.length), body);
    const padding = (512 - (body.length % 512)) % 512;
    if (padding > 0) blocks.push(Buffer.alloc(padding));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}
