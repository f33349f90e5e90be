/**
 * Installs the runtime of a registry entry into a staged folder: the distribution chosen for
 * this machine (npm package, platform binary or uv package), resolved to the program to run.
 */
import { join } from 'node:path';
import { installBinaryRuntime } from './binary-runtime.js';
import { chooseDistribution } from './distribution.js';
import { installNpmRuntime } from './npm-runtime.js';
import type { RegistryEntry } from './registry-entry.js';
import type { RuntimeContext, StagedRuntime } from './staged-runtime.js';
import { installUvRuntime } from './uv-runtime.js';

/**
 * Installs `entry` into `dir` (empty); `scratch` holds downloads. Runs nothing of the agent.
 * @example const runtime = await installRuntime(entry, 'linux-x86_64', dir, scratch, context);
 */
export async function installRuntime(
  entry: RegistryEntry,
  platform: string,
  dir: string,
  scratch: string,
  context: RuntimeContext,
): Promise<StagedRuntime> {
  const chosen = chooseDistribution(entry, platform);
  switch (chosen.kind) {
    case 'npx':
      return installNpmRuntime(entry, chosen.target, dir, context);
    case 'binary':
      return installBinaryRuntime(
        entry,
        chosen.target,
        chosen.platform,
        dir,
        join(scratch, 'binary'),
      );
    case 'uvx':
      return installUvRuntime(entry, chosen.target, dir, context);
  }
}
