/** Where the tutti home is: `--home`, else `$TUTTI_HOME`, else `~/.tutti`. */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** Inputs of {@link resolveHome}. */
export interface HomeSources {
  /** Value of the `--home` flag, if given. */
  readonly flag?: string | undefined;
  /** Environment to read `TUTTI_HOME` from; defaults to `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

function expand(path: string): string {
  if (path === '~') return homedir();
  return resolve(path.startsWith('~/') ? join(homedir(), path.slice(2)) : path);
}

/**
 * The absolute tutti home folder. A leading `~/` is expanded; relative paths resolve
 * against the current directory.
 * @example resolveHome({ flag: undefined, env: { TUTTI_HOME: '/srv/tutti' } }) // '/srv/tutti'
 */
export function resolveHome(sources: HomeSources = {}): string {
  if (sources.flag) return expand(sources.flag);
  const fromEnv = (sources.env ?? process.env).TUTTI_HOME;
  if (fromEnv) return expand(fromEnv);
  return join(homedir(), '.tutti');
}
