/**
 * The uvx distribution, installed once: `uv venv --relocatable` in the staged folder, then
 * `uv pip install` of the pinned package into it, from wheels only unless install scripts are
 * allowed (a source distribution runs its build code); the program is `venv/bin/<cmd or
 * package name>`. Without `uv` on PATH: TUTTI_ERR_AGENT_UV_MISSING.
 */
import { access, constants } from 'node:fs/promises';
import { delimiter, join } from 'node:path';
import { TuttiError } from '../errors/index.js';
import { pinnedPythonPackage } from './pinned-packages.js';
import type { PackageTarget, RegistryEntry } from './registry-entry.js';
import { runTool } from './run-tool.js';
import { programInside, type RuntimeContext, type StagedRuntime } from './staged-runtime.js';

const UV_TIMEOUT_MS = 10 * 60 * 1000;

/** The absolute path of `uv` on the PATH of `env`, if any. */
export async function findUv(env: NodeJS.ProcessEnv): Promise<string | undefined> {
  const names = process.platform === 'win32' ? ['uv.exe'] : ['uv'];
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '') continue;
    for (const name of names) {
      const path = join(dir, name);
      try {
        await access(path, constants.X_OK);
        return path;
      } catch {}
    }
  }
  return undefined;
}

async function uv(
  id: string,
  command: string,
  args: string[],
  dir: string,
  env: NodeJS.ProcessEnv,
) {
  const result = await runTool(command, args, { cwd: dir, env, timeoutMs: UV_TIMEOUT_MS });
  if (result.code === 0) return;
  const what = `uv ${args.slice(0, 2).join(' ')}`;
  throw new TuttiError('TUTTI_ERR_AGENT_INSTALL_FAILED', {
    id,
    reason: result.startError
      ? `uv could not be started (${result.startError})`
      : result.timedOut
        ? `${what} took longer than ${UV_TIMEOUT_MS / 60000} minutes`
        : `${what} exited with ${result.code ?? 'a signal'}${result.tail ? `:\n${result.tail}` : ''}`,
  });
}

/**
 * The arguments of `uv pip install` for `spec` (`name==1.2.3`) into the venv of `python`:
 * wheels only (`--only-binary :all:`, no source distribution's build code runs) unless the
 * request allows install scripts.
 */
export function uvPipInstallArgs(
  python: string,
  spec: string,
  allowInstallScripts: boolean,
): string[] {
  return [
    'pip',
    'install',
    '--quiet',
    '--python',
    python,
    ...(allowInstallScripts ? [] : ['--only-binary', ':all:']),
    spec,
  ];
}

/** Installs a uvx target's pinned package into a venv in `dir` (which exists and is empty). */
export async function installUvRuntime(
  entry: RegistryEntry,
  target: PackageTarget,
  dir: string,
  context: RuntimeContext,
): Promise<StagedRuntime> {
  const command = await findUv(context.env);
  if (!command) throw new TuttiError('TUTTI_ERR_AGENT_UV_MISSING', { id: entry.id });
  const pin = pinnedPythonPackage(entry.id, target.package, entry.version);
  const venv = join(dir, 'venv');
  const bin = process.platform === 'win32' ? 'Scripts' : 'bin';
  const python = join(venv, bin, process.platform === 'win32' ? 'python.exe' : 'python');
  await uv(entry.id, command, ['venv', '--relocatable', '--quiet', venv], dir, context.env);
  await uv(
    entry.id,
    command,
    uvPipInstallArgs(python, `${pin.name}==${pin.version}`, context.allowInstallScripts),
    dir,
    context.env,
  );
  const program = target.cmd ?? pin.name.replace(/\[.*$/, '');
  return {
    version: entry.version,
    dir,
    command: await programInside(entry.id, dir, join(venv, bin), program),
    args: target.args ?? [],
    env: target.env ?? {},
  };
}
