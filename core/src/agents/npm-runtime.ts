/**
 * The npx distribution, installed once instead of run with `npx` at each session: npm
 * installs the pinned package into the staged folder (no lockfile, no audit, no install
 * scripts unless the user allows them), and the program is the entry's `cmd` or the
 * package's bin.
 */
import { access, constants, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { TuttiError } from '../errors/index.js';
import { pinnedNpmPackage } from './pinned-packages.js';
import type { PackageTarget, RegistryEntry } from './registry-entry.js';
import { runTool } from './run-tool.js';
import {
  makeExecutable,
  programInside,
  type RuntimeContext,
  type StagedRuntime,
} from './staged-runtime.js';

const NPM_TIMEOUT_MS = 10 * 60 * 1000;

/** npm next to this node (`dirname(process.execPath)/npm`), else `npm` on PATH. */
async function npmCommand(): Promise<string> {
  const beside = join(dirname(process.execPath), process.platform === 'win32' ? 'npm.cmd' : 'npm');
  try {
    await access(beside, constants.X_OK);
    return beside;
  } catch {
    return 'npm';
  }
}

/** The program a package's `bin` names: the only one, or the one named like the package. */
function binOf(id: string, name: string, manifest: { bin?: unknown }): string {
  const { bin } = manifest;
  if (typeof bin === 'string') return bin;
  if (bin !== null && typeof bin === 'object') {
    const bins = Object.entries(bin as Record<string, unknown>).filter(
      (pair): pair is [string, string] => typeof pair[1] === 'string',
    );
    if (bins.length === 1) return bins[0]![1];
    const unscoped = name.replace(/^@[^/]+\//, '');
    const named = bins.find(([key]) => key === unscoped);
    if (named) return named[1];
    throw new TuttiError('TUTTI_ERR_AGENT_INSTALL_FAILED', {
      id,
      reason: `the package ${name} has several programs (${bins.map(([key]) => key).join(', ')}) and the entry names none: set "cmd" to one of them`,
    });
  }
  throw new TuttiError('TUTTI_ERR_AGENT_INSTALL_FAILED', {
    id,
    reason: `the package ${name} has no "bin" and the entry no "cmd": set "cmd" to the program in the package`,
  });
}

/** Installs an npx target's pinned package into `dir` (which exists and is empty). */
export async function installNpmRuntime(
  entry: RegistryEntry,
  target: PackageTarget,
  dir: string,
  context: RuntimeContext,
): Promise<StagedRuntime> {
  const pin = pinnedNpmPackage(entry.id, target.package, entry.version);
  const spec = `${pin.name}@${pin.version}`;
  const manifest: Record<string, unknown> = { private: true };
  // Leaving out --ignore-scripts is the switch; npm 11.19+ under strict-allow-scripts also
  // wants the package approved (ESTRICTALLOWSCRIPTS otherwise).
  if (context.allowInstallScripts) manifest.allowScripts = { [pin.name]: true };
  await writeFile(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  const args = [
    'install',
    '--prefix',
    dir,
    '--no-save',
    '--no-audit',
    '--no-fund',
    '--no-package-lock',
    '--no-update-notifier',
    ...(context.allowInstallScripts ? [] : ['--ignore-scripts']),
    spec,
  ];
  const result = await runTool(await npmCommand(), args, {
    cwd: dir,
    env: context.env,
    timeoutMs: NPM_TIMEOUT_MS,
  });
  if (result.code !== 0) {
    const why = result.startError
      ? `npm could not be started (${result.startError}): install Node.js with npm`
      : result.timedOut
        ? `npm install ${spec} took longer than ${NPM_TIMEOUT_MS / 60000} minutes`
        : `npm install ${spec} exited with ${result.code ?? 'a signal'}${result.tail ? `:\n${result.tail}` : ''}`;
    throw new TuttiError('TUTTI_ERR_AGENT_INSTALL_FAILED', { id: entry.id, reason: why });
  }
  const packageDir = join(dir, 'node_modules', ...pin.name.split('/'));
  let packageJson: { bin?: unknown };
  try {
    packageJson = JSON.parse(await readFile(join(packageDir, 'package.json'), 'utf8'));
  } catch {
    throw new TuttiError('TUTTI_ERR_AGENT_INSTALL_FAILED', {
      id: entry.id,
      reason: `npm reported success but ${pin.name} has no readable package.json`,
    });
  }
  const program = programFor(entry.id, pin.name, packageJson, target.cmd);
  const command = await programInside(entry.id, dir, packageDir, program);
  await makeExecutable(join(dir, command));
  return {
    version: entry.version,
    dir,
    command,
    args: target.args ?? [],
    env: target.env ?? {},
  };
}

/** The entry's `cmd` (a bin name, or a path in the package), else the package's bin. */
function programFor(
  id: string,
  name: string,
  packageJson: { bin?: unknown },
  cmd: string | undefined,
): string {
  if (cmd === undefined) return binOf(id, name, packageJson);
  const { bin } = packageJson;
  if (bin !== null && typeof bin === 'object') {
    const named = (bin as Record<string, unknown>)[cmd];
    if (typeof named === 'string') return named;
  }
  return cmd;
}
