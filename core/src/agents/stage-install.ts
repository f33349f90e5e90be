/**
 * Prepares one install in the staging folder `<home>/agents/<id>/.staging-<random>/`: the
 * runtime of a registry entry (`runtime/`), or a verified extension (`extension/`, its
 * `source.json`, and the runtime of the entry it brings, which may set no variable that loads
 * code). Nothing outside the staging folder is touched; the transaction moves the parts into
 * place.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { TuttiError } from '../errors/index.js';
import { variableLoadsCode } from './code-variables.js';
import { installExtensionPackage } from './extension-package.js';
import { type ExtensionSource, fetchSignedVersion } from './extension-source.js';
import type { InstallPlan } from './install-request.js';
import { installRuntime } from './install-runtime.js';
import { parseRegistryEntry, type RegistryEntry } from './registry-entry.js';
import type { RuntimeContext, StagedRuntime } from './staged-runtime.js';

/** A staged extension: its folder (to become `extension/<version>/`) and what it declared. */
export interface StagedExtension {
  readonly source: ExtensionSource;
  readonly version: string;
  readonly dir: string;
  /** The staged `source.json`. */
  readonly sourceFile: string;
  readonly descriptor: string;
  readonly files: readonly string[];
}

/** Everything one install staged. */
export interface StagedInstall {
  readonly id: string;
  /** The registry entry installed (sent, looked up, or brought by the extension). */
  readonly entry?: RegistryEntry;
  readonly runtime?: StagedRuntime;
  readonly extension?: StagedExtension;
}

/** The id an install plan is for. */
export function idOfPlan(plan: InstallPlan): string {
  return plan.kind === 'entry' ? plan.entry.id : plan.source.agent;
}

/** Stages `plan` in `staging` (an empty folder) for this machine's `platform`. */
export async function stageInstall(
  plan: InstallPlan,
  staging: string,
  platform: string,
  env: NodeJS.ProcessEnv,
): Promise<StagedInstall> {
  const context: RuntimeContext = { env, allowInstallScripts: plan.allowInstallScripts };
  const scratch = join(staging, 'scratch');
  await mkdir(scratch);
  const stageRuntime = async (entry: RegistryEntry) => {
    const dir = join(staging, 'runtime');
    await mkdir(dir);
    return installRuntime(entry, platform, dir, scratch, context);
  };
  if (plan.kind === 'entry') {
    return { id: plan.entry.id, entry: plan.entry, runtime: await stageRuntime(plan.entry) };
  }

  const { source } = plan;
  const signed = await fetchSignedVersion(source);
  const dir = join(staging, 'extension');
  await mkdir(dir);
  const pkg = await installExtensionPackage(source, signed, dir, scratch);
  const sourceFile = join(staging, 'source.json');
  await writeFile(sourceFile, `${JSON.stringify(source, null, 2)}\n`, { mode: 0o600 });
  const extension: StagedExtension = {
    source,
    version: source.version,
    dir,
    sourceFile,
    descriptor: pkg.descriptor,
    files: pkg.files,
  };
  if (pkg.entry === undefined) return { id: source.agent, extension };
  const entry = parseRegistryEntry(pkg.entry);
  if (entry.id !== source.agent) {
    throw new TuttiError('TUTTI_ERR_EXTENSION_IDENTITY_MISMATCH', {
      agent: source.agent,
      where: 'the entry of tutti-extension.json',
      found: entry.id,
    });
  }
  refuseCodeVariables(source.agent, entry);
  return { id: source.agent, entry, extension, runtime: await stageRuntime(entry) };
}

/**
 * Refuses an extension's entry that sets a variable loading code (NODE_OPTIONS, LD_PRELOAD,
 * PATH...): an extension is data and sets switches only. (An entry of the registry itself
 * is the agent's own code anyway.)
 */
function refuseCodeVariables(agent: string, entry: RegistryEntry): void {
  const { npx, uvx, binary } = entry.distribution;
  const targets: [string, { env?: Record<string, string> } | undefined][] = [
    ['npx', npx],
    ['uvx', uvx],
    ...Object.entries(binary ?? {}).map(
      ([platform, target]): [string, { env?: Record<string, string> }] => [
        `binary.${platform}`,
        target,
      ],
    ),
  ];
  for (const [where, target] of targets) {
    const name = Object.keys(target?.env ?? {}).find(variableLoadsCode);
    if (name !== undefined) {
      throw new TuttiError('TUTTI_ERR_EXTENSION_BAD_PACKAGE', {
        agent,
        problem: `the entry of tutti-extension.json sets ${name} (distribution.${where}.env), a variable that loads code: an extension sets switches only, remove it`,
      });
    }
  }
}
