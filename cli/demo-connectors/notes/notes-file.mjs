// Storage of the `notes` demo connector: one JSON file, `{ "notes": [...] }`, at
// $NOTES_FILE, else notes.json in the state folder tutti gives the server
// ($TUTTI_CONNECTOR_STATE_DIR, kept across upgrades and restarts), else (an older tutti)
// <tutti home>/data/notes.json (tutti home: $TUTTI_HOME, else ~/.tutti).
// Plain Node 20, no dependencies: the connector runs from an installed release folder that
// carries no node_modules. Calls run one at a time; a write goes to a temp file renamed
// over the old one.
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';

const file =
  process.env.NOTES_FILE ??
  (process.env.TUTTI_CONNECTOR_STATE_DIR
    ? join(process.env.TUTTI_CONNECTOR_STATE_DIR, 'notes.json')
    : join(process.env.TUTTI_HOME ?? join(homedir(), '.tutti'), 'data', 'notes.json'));

/** All notes, oldest first; none when the file does not exist yet. */
async function loadNotes() {
  try {
    return JSON.parse(await readFile(file, 'utf8')).notes;
  } catch (error) {
    if (error.code === 'ENOENT') return [];
    throw error;
  }
}

async function save(notes) {
  await mkdir(dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.tmp`;
  await writeFile(temp, `${JSON.stringify({ notes }, null, 2)}\n`);
  await rename(temp, file);
}

let queue = Promise.resolve();

/**
 * Runs `change(notes)` -> `{ notes, result }` after every earlier call (so a read sees
 * every earlier write), saves `notes` when it is a new array, and resolves `result`.
 */
export function updateNotes(change) {
  const run = queue.then(async () => {
    const notes = await loadNotes();
    const next = await change(notes);
    if (next.notes !== notes) await save(next.notes);
    return next.result;
  });
  queue = run.catch(() => {});
  return run;
}
