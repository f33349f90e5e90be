/**
 * Archives the installer opens: a `.tar.gz` is listed first, and refused (naming the entry)
 * for an absolute path, a `..` segment, a link, a device or anything else that is not a
 * regular file or a directory, a path named twice or one under an earlier file, before
 * anything is extracted. Extraction then runs with tar's strict mode into a fresh folder.
 * `.zip` and `.tar.bz2` are refused with a clear message; a download without an archive
 * extension is the program itself.
 */
import * as tar from 'tar';
import { TuttiError } from '../errors/index.js';
import { shownUrl } from './download.js';

/** How a download is unpacked. */
export type ArchiveKind = 'tar.gz' | 'raw';

/** One listed entry: a regular file or a directory, its path relative and normalized. */
export interface ArchiveEntry {
  readonly path: string;
  readonly type: 'file' | 'dir';
  readonly mode: number;
  readonly size: number;
}

const MAX_ENTRIES = 100_000;
const MAX_TOTAL_BYTES = 4 * 1024 * 1024 * 1024;
const FILE_TYPES = new Set(['File', 'OldFile', 'ContiguousFile']);
const INSTALLERS = /\.(dmg|pkg|deb|rpm|msi|appimage)$/i;

/** The kind of archive an address names; refuses the ones tutti cannot open. */
export function archiveKindOf(url: URL, id: string): ArchiveKind {
  const path = url.pathname.toLowerCase();
  if (path.endsWith('.tar.gz') || path.endsWith('.tgz')) return 'tar.gz';
  const refuse = (what: string) =>
    new TuttiError('TUTTI_ERR_AGENT_INSTALL_FAILED', {
      id,
      reason: `the archive ${shownUrl(url)} is ${what}: ask the agent's authors for a .tar.gz build, or install it by hand and write a descriptor`,
    });
  if (/\.(tar\.bz2|tbz2|tar\.xz|txz|tar)$/.test(path))
    throw refuse('a tar format other than .tar.gz, which tutti does not extract');
  if (path.endsWith('.zip')) throw refuse('a .zip, which tutti does not extract');
  if (INSTALLERS.test(path)) throw refuse('an installer package');
  return 'raw';
}

/** Why a path is unsafe, or undefined; `normalized` drops `./` and trailing `/`. */
function pathProblem(raw: string): { problem?: string; normalized: string } {
  if (raw === '' || raw.includes('\0'))
    return { problem: 'has an empty or invalid path', normalized: raw };
  if (raw.startsWith('/') || raw.startsWith('\\') || /^[A-Za-z]:/.test(raw)) {
    return { problem: 'has an absolute path', normalized: raw };
  }
  const parts = raw.split(/[/\\]+/).filter((part) => part !== '' && part !== '.');
  if (parts.includes('..')) return { problem: 'leaves the folder with ".."', normalized: raw };
  return { normalized: parts.join('/') };
}

function unsafe(url: URL, entry: string, reason: string): TuttiError {
  return new TuttiError('TUTTI_ERR_AGENT_ARCHIVE_UNSAFE', {
    url: shownUrl(url),
    entry: entry.slice(0, 300),
    reason,
  });
}

/**
 * Why `path` clashes with an earlier entry, or undefined: the same path twice (extraction
 * would replace the first), a path under an earlier file, a file where an earlier entry
 * lies in a folder of that name.
 */
function clashOf(
  path: string,
  type: ArchiveEntry['type'],
  seen: ReadonlyMap<string, ArchiveEntry['type']>,
  parents: ReadonlySet<string>,
): string | undefined {
  if (seen.has(path)) return `names the path "${path}" a second time`;
  const parts = path.split('/');
  for (let n = 1; n < parts.length; n++) {
    const parent = parts.slice(0, n).join('/');
    if (seen.get(parent) === 'file') return `lies under "${parent}", an earlier file`;
  }
  if (type === 'file' && parents.has(path))
    return `is a file where earlier entries lie in a folder "${path}"`;
  return undefined;
}

/** Lists a `.tar.gz`, refusing the first unsafe entry; answers the files and folders. */
export async function listArchive(file: string, url: URL): Promise<ArchiveEntry[]> {
  const entries: ArchiveEntry[] = [];
  const seen = new Map<string, ArchiveEntry['type']>();
  /** Every folder an entry lies in, named or not. */
  const parents = new Set<string>();
  let refusal: TuttiError | undefined;
  let total = 0;
  try {
    await tar.t({
      file,
      strict: true,
      onReadEntry(entry) {
        if (refusal) return;
        const { problem, normalized } = pathProblem(entry.path);
        if (problem) refusal = unsafe(url, entry.path, problem);
        else if (entry.type === 'SymbolicLink')
          refusal = unsafe(url, entry.path, 'is a symbolic link');
        else if (entry.type === 'Link') refusal = unsafe(url, entry.path, 'is a hard link');
        else if (entry.type !== 'Directory' && !FILE_TYPES.has(entry.type)) {
          refusal = unsafe(url, entry.path, `is a ${entry.type}, not a regular file or folder`);
        } else if (normalized !== '') {
          const type = entry.type === 'Directory' ? 'dir' : 'file';
          const clash = clashOf(normalized, type, seen, parents);
          if (clash) {
            refusal = unsafe(url, entry.path, clash);
            return;
          }
          seen.set(normalized, type);
          const parts = normalized.split('/');
          for (let n = 1; n < parts.length; n++) parents.add(parts.slice(0, n).join('/'));
          total += entry.size;
          entries.push({ path: normalized, type, mode: entry.mode ?? 0, size: entry.size });
          if (entries.length > MAX_ENTRIES)
            refusal = unsafe(url, entry.path, `is one entry too many (at most ${MAX_ENTRIES})`);
          if (total > MAX_TOTAL_BYTES)
            refusal = unsafe(
              url,
              entry.path,
              `makes the archive larger than ${MAX_TOTAL_BYTES} bytes unpacked`,
            );
        }
      },
    });
  } catch (error) {
    if (refusal) throw refusal;
    throw unsafe(url, '(archive)', `cannot be read as a .tar.gz (${(error as Error).message})`);
  }
  if (refusal) throw refusal;
  return entries;
}

/** Extracts a listed `.tar.gz` into `dir` (which exists); only files and folders. */
export async function extractArchive(file: string, dir: string, url: URL): Promise<void> {
  try {
    await tar.x({
      file,
      cwd: dir,
      strict: true,
      preservePaths: false,
      preserveOwner: false,
      filter: (_path, entry) =>
        'type' in entry && (entry.type === 'Directory' || FILE_TYPES.has(entry.type)),
    });
  } catch (error) {
    throw unsafe(url, '(archive)', `could not be extracted (${(error as Error).message})`);
  }
}
