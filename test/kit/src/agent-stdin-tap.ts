/**
 * A stdin tap for agents the daemon spawns: a tiny `sh` wrapper that copies everything the
 * daemon writes to the agent's stdin into a 0600 file, then runs the real agent on the
 * same stream with the wrapper's arguments. Tests read the session tokens the daemon sent
 * from it; the wrapper stays the process group leader, so group checks cover the agent.
 */
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** A written wrapper: launch it as the agent command; `recorded` is the copy of stdin. */
export interface StdinTap {
  readonly command: string;
  readonly recorded: string;
}

/** Writes `<dir>/<name>` running `agent` behind the tap. `dir` must be private (0700). */
export async function writeStdinTap(dir: string, name: string, agent: string): Promise<StdinTap> {
  const command = join(dir, name);
  const recorded = join(dir, `${name}.stdin`);
  const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;
  await writeFile(
    command,
    `#!/bin/sh\numask 077\ntee -a ${quote(recorded)} | exec ${quote(agent)} "$@"\n`,
  );
  await chmod(command, 0o700);
  return { command, recorded };
}
