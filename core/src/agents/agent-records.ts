/**
 * The records of installed agents: `<home>/agents/<id>/installed.json` (0600, written
 * atomically, last), read back for the feed and the listing, and the size of an agent's
 * folder on disk (links are counted, never followed).
 */
import { randomBytes } from 'node:crypto';
import { lstat, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { InstalledAgent } from '../contracts/installed-agents.js';
import { AGENT_ID } from './registry-entry.js';

/** The record's file name in an agent's folder. */
export const RECORD_FILE = 'installed.json';

/** Writes `content` to `path` through a temp file and a rename, with `mode`. */
export async function writeFileAtomic(path: string, content: string, mode: number): Promise<void> {
  const temp = `${path}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, content, { mode, flag: 'wx' });
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Writes an agent's record. */
export function writeRecord(agentDir: string, agent: InstalledAgent): Promise<void> {
  return writeFileAtomic(join(agentDir, RECORD_FILE), `${JSON.stringify(agent, null, 2)}\n`, 0o600);
}

function isRecord(value: unknown, id: string): value is InstalledAgent {
  const record = value as Partial<InstalledAgent> | null;
  return (
    record !== null &&
    typeof record === 'object' &&
    record.id === id &&
    typeof record.name === 'string' &&
    typeof record.version === 'string' &&
    (record.source === 'registry' || record.source === 'extension') &&
    typeof record.dir === 'string' &&
    typeof record.installedAt === 'string'
  );
}

/** Reads the record in `agentDir`: undefined when there is none; throws when it is broken. */
export async function readRecord(
  agentDir: string,
  id: string,
): Promise<InstalledAgent | undefined> {
  let text: string;
  try {
    text = await readFile(join(agentDir, RECORD_FILE), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const value: unknown = JSON.parse(text);
  if (!isRecord(value, id)) throw new Error(`${RECORD_FILE} is not a record of agent "${id}"`);
  return value;
}

/** Every readable record under `agentsDir`; a broken one is reported and skipped. */
export async function readRecords(
  agentsDir: string,
  onBroken: (id: string, problem: string) => void,
): Promise<InstalledAgent[]> {
  let names: string[];
  try {
    names = (await readdir(agentsDir, { withFileTypes: true }))
      .filter((dirent) => dirent.isDirectory() && AGENT_ID.test(dirent.name))
      .map((dirent) => dirent.name)
      .sort();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const records: InstalledAgent[] = [];
  for (const id of names) {
    try {
      const record = await readRecord(join(agentsDir, id), id);
      if (record) records.push(record);
    } catch (error) {
      onBroken(id, (error as Error).message);
    }
  }
  return records;
}

/** Bytes under `path`, walking with lstat (links count as themselves). */
export async function sizeOnDisk(path: string): Promise<number> {
  let stats: Awaited<ReturnType<typeof lstat>>;
  try {
    stats = await lstat(path);
  } catch {
    return 0;
  }
  if (!stats.isDirectory()) return stats.size;
  let total = 0;
  for (const name of await readdir(path).catch(() => [] as string[])) {
    total += await sizeOnDisk(join(path, name));
  }
  return total;
}
