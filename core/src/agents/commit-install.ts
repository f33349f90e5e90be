/**
 * The last step of an install: move the staged parts into `<home>/agents/<id>/`, write the
 * record, and wait for every feed listener. A listener that throws undoes it all (the
 * earlier version's files and record come back, the listeners hear of it again) and its
 * error is the answer; once accepted, the earlier version's files are removed.
 */
import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { InstalledAgent, InstalledAgentsChange } from '../contracts/installed-agents.js';
import { RECORD_FILE, writeFileAtomic, writeRecord } from './agent-records.js';
import type { StagedInstall } from './stage-install.js';

/** Tells every listener of a change, in order; the first that throws stops it. */
export type Notify = (change: InstalledAgentsChange) => Promise<void>;

type Undo = () => Promise<void>;

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}

/** The record an install makes, given the agent's earlier record. */
export function composeRecord(
  agentDir: string,
  staged: StagedInstall,
  previous: InstalledAgent | undefined,
  installedAt: string,
): InstalledAgent {
  const ext = staged.extension;
  const extension = ext
    ? {
        version: ext.version,
        dir: join(agentDir, 'extension', ext.version),
        descriptor: join(agentDir, 'extension', ext.version, ...ext.descriptor.split('/')),
        files: ext.files,
      }
    : previous?.extension;
  const base = { id: staged.id, dir: agentDir, installedAt, ...(extension ? { extension } : {}) };
  const { entry, runtime } = staged;
  if (entry && runtime) {
    return {
      ...base,
      name: entry.name,
      ...(entry.description ? { description: entry.description } : {}),
      version: entry.version,
      source: ext ? 'extension' : 'registry',
      run: {
        command: join(agentDir, runtime.version, ...runtime.command.split('/')),
        args: runtime.args,
        env: runtime.env,
      },
    };
  }
  // An extension without a runtime of its own keeps an installed registry runtime.
  if (previous?.source === 'registry' && previous.run) {
    const { name, description, version, run } = previous;
    return {
      ...base,
      name,
      ...(description ? { description } : {}),
      version,
      source: 'registry',
      run,
    };
  }
  return { ...base, name: staged.id, version: ext?.version ?? '', source: 'extension' };
}

/** The names in `agentDir` a record uses (its runtime folder, extension, source, record). */
function namesInUse(agentDir: string, record: InstalledAgent): Set<string> {
  const keep = new Set([RECORD_FILE]);
  if (record.run) {
    const first = relative(agentDir, record.run.command).split(sep)[0];
    if (first && first !== '..') keep.add(first);
  }
  if (record.extension) keep.add('extension').add('source.json');
  return keep;
}

/** Removes what the new record no longer uses: earlier versions, staging leftovers. */
async function removeUnused(agentDir: string, record: InstalledAgent): Promise<void> {
  const keep = namesInUse(agentDir, record);
  for (const name of await readdir(agentDir)) {
    if (!keep.has(name)) await rm(join(agentDir, name), { recursive: true, force: true });
  }
  if (record.extension) {
    const extensions = join(agentDir, 'extension');
    for (const name of await readdir(extensions)) {
      if (name !== record.extension.version)
        await rm(join(extensions, name), { recursive: true, force: true });
    }
  }
}

/** Moves a staged folder to `to`, the folder there (same version) set aside until accepted. */
async function placeDir(from: string, to: string, aside: string, undo: Undo[]): Promise<void> {
  if (await exists(to)) {
    await rename(to, aside);
    undo.push(() => rename(aside, to));
  }
  await mkdir(dirname(to), { recursive: true });
  await rename(from, to);
  undo.push(() => rm(to, { recursive: true, force: true }));
}

/** Replaces file `to` atomically; the undo writes its earlier content back (or removes it). */
async function placeFile(to: string, write: () => Promise<void>, undo: Undo[]): Promise<void> {
  const before = await readFile(to).catch(() => undefined);
  await write();
  undo.push(() =>
    before ? writeFileAtomic(to, before.toString('utf8'), 0o600) : rm(to, { force: true }),
  );
}

/**
 * Puts `staged` in place under `agentDir`, records it, and has the listeners accept it.
 * `staging` is the install's staging folder (removed by the caller).
 */
export async function commitInstall(
  agentDir: string,
  staging: string,
  staged: StagedInstall,
  previous: InstalledAgent | undefined,
  notify: Notify,
  warn: (fields: Record<string, unknown>, message: string) => void,
): Promise<InstalledAgent> {
  const undo: Undo[] = [];
  let notified = false;
  const record = composeRecord(agentDir, staged, previous, new Date().toISOString());
  const rollback = async () => {
    for (const step of undo.reverse()) {
      await step().catch((error: Error) =>
        warn(
          { agent: staged.id, error: error.message },
          'agent install: a step of the undo failed',
        ),
      );
    }
  };
  try {
    if (staged.runtime) {
      const to = join(agentDir, staged.runtime.version);
      await placeDir(staged.runtime.dir, to, join(staging, 'previous-runtime'), undo);
    }
    if (staged.extension) {
      const ext = staged.extension;
      const to = join(agentDir, 'extension', ext.version);
      await placeDir(ext.dir, to, join(staging, 'previous-extension'), undo);
      const sourceFile = join(agentDir, 'source.json');
      await placeFile(sourceFile, () => rename(ext.sourceFile, sourceFile), undo);
    }
    await placeFile(join(agentDir, RECORD_FILE), () => writeRecord(agentDir, record), undo);
    notified = true;
    await notify({ kind: 'installed', agent: record });
  } catch (error) {
    await rollback();
    if (!notified) throw error;
    const again: InstalledAgentsChange = previous
      ? { kind: 'installed', agent: previous }
      : { kind: 'removed', id: staged.id };
    await notify(again).catch((undoError: Error) =>
      warn(
        { agent: staged.id, error: undoError.message },
        'agent install: a listener refused the undo',
      ),
    );
    throw error;
  }
  await removeUnused(agentDir, record).catch((error: Error) =>
    warn(
      { agent: staged.id, error: error.message },
      'agent install: earlier files could not be removed',
    ),
  );
  return record;
}
