/**
 * Which distribution of a registry entry this machine installs: the npm package when there
 * is one (pinned, its integrity checked by npm), else the binary for this platform, else the
 * Python package (uv). The platform key comes from `process.platform` and `process.arch`.
 */
import { TuttiError } from '../errors/index.js';
import type { BinaryTarget, PackageTarget, RegistryEntry } from './registry-entry.js';

/** The distribution chosen for this machine. */
export type ChosenDistribution =
  | { readonly kind: 'npx'; readonly target: PackageTarget }
  | { readonly kind: 'binary'; readonly target: BinaryTarget; readonly platform: string }
  | { readonly kind: 'uvx'; readonly target: PackageTarget };

const OS: Record<string, string> = { darwin: 'darwin', linux: 'linux', win32: 'windows' };
const ARCH: Record<string, string> = { x64: 'x86_64', arm64: 'aarch64' };

/**
 * The registry's platform key of a machine.
 * @example platformKey('linux', 'x64') // 'linux-x86_64'
 */
export function platformKey(
  platform: string = process.platform,
  arch: string = process.arch,
): string {
  return `${OS[platform] ?? platform}-${ARCH[arch] ?? arch}`;
}

/** Picks npx, else this platform's binary, else uvx; TUTTI_ERR_AGENT_NO_PLATFORM if none. */
export function chooseDistribution(entry: RegistryEntry, platform: string): ChosenDistribution {
  const { npx, uvx, binary } = entry.distribution;
  if (npx) return { kind: 'npx', target: npx };
  const target = binary?.[platform];
  if (target) return { kind: 'binary', target, platform };
  if (uvx) return { kind: 'uvx', target: uvx };
  throw new TuttiError('TUTTI_ERR_AGENT_NO_PLATFORM', { id: entry.id, platform });
}
