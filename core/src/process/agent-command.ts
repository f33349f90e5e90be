/**
 * Where an agent's command is: an npm package's bin installed beside the daemon, else a
 * name on PATH, else an absolute path as given. Every provider resolves its agent this way,
 * so an agent starts the same however the daemon was started (`npm start` puts the
 * project's `node_modules/.bin` on PATH, `node cli/bin/tuttid.js` does not).
 */
import { constants } from 'node:fs';
import { access, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { delimiter, dirname, isAbsolute, join } from 'node:path';

/** A command: a name on PATH or a path, or the bin of an npm package. */
export type AgentCommand = string | { readonly package: string; readonly bin: string };

async function executable(path: string): Promise<boolean> {
  return access(path, constants.X_OK).then(
    () => true,
    () => false,
  );
}

/** `name` found on `path`, if it is. */
async function onPath(name: string, path: string | undefined): Promise<string | undefined> {
  for (const dir of (path ?? '').split(delimiter).filter(Boolean)) {
    if (await executable(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

/** The bin `bin` of package `name` as installed for the module at `from`, if it is. */
async function packageBin(from: string, name: string, bin: string): Promise<string | undefined> {
  let manifest: string;
  try {
    manifest = createRequire(from).resolve(`${name}/package.json`);
  } catch {
    return undefined;
  }
  const pkg = JSON.parse(await readFile(manifest, 'utf8')) as {
    bin?: string | Record<string, string>;
  };
  const relative = typeof pkg.bin === 'string' ? pkg.bin : pkg.bin?.[bin];
  return relative ? join(dirname(manifest), relative) : undefined;
}

/**
 * The path of `command`, or why it cannot be found (a sentence that says what to do).
 * A package is looked up from the module `from` (the provider's own `import.meta.url`).
 * @example await resolveAgentCommand({ package: '@openai/codex', bin: 'codex' }, import.meta.url, env.PATH)
 */
export async function resolveAgentCommand(
  command: AgentCommand,
  from: string,
  path: string | undefined,
): Promise<{ command: string } | { problem: string }> {
  if (typeof command === 'string') {
    if (isAbsolute(command)) {
      return (await executable(command))
        ? { command }
        : { problem: `"${command}" is not an executable file: install the agent or fix the path` };
    }
    const found = await onPath(command, path);
    return found
      ? { command: found }
      : {
          problem: `"${command}" is not installed (not on PATH): install the agent or put it on PATH`,
        };
  }
  const found =
    (await packageBin(from, command.package, command.bin)) ?? (await onPath(command.bin, path));
  return found
    ? { command: found }
    : {
        problem: `"${command.bin}" of the npm package ${command.package} is not installed: install it (npm install -g ${command.package}) or put "${command.bin}" on PATH`,
      };
}
