/**
 * A connector release that carries a real npm package and everything it depends on, copied
 * from this repository's `node_modules` (offline: nothing is downloaded), so the package
 * runs by `node` from inside the release, as a connector that ships its dependencies does.
 * Each package keeps its place relative to the repository (a nested
 * `node_modules/a/node_modules/b` stays nested), so Node resolves inside the release
 * exactly as it does here.
 */
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, writeFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { REPO_ROOT } from './paths.js';
import { tempDir } from './temp-dirs.js';

/** The folder Node finds `name` in from `from` (a package folder), walking up. */
function packageFolder(name: string, from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    const candidate = join(dir, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (dir === dirname(dir)) throw new Error(`${name} is not installed (looked from ${from})`);
  }
}

/** `root` and every package it depends on (dependencies, installed optional ones), once each. */
function closure(root: string): string[] {
  const found = new Set<string>([root]);
  const queue = [root];
  while (queue.length > 0) {
    const dir = queue.shift()!;
    const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const names = [
      ...Object.keys(manifest.dependencies ?? {}),
      ...Object.keys(manifest.peerDependencies ?? {}),
    ];
    for (const name of names) {
      let folder: string;
      try {
        folder = packageFolder(name, dir);
      } catch (error) {
        if (name in (manifest.dependencies ?? {})) throw error;
        continue; // a peer nobody installed
      }
      if (!found.has(folder)) {
        found.add(folder);
        queue.push(folder);
      }
    }
  }
  return [...found];
}

/** Options of {@link packageRelease}. */
export interface PackageReleaseSpec {
  /** The npm package to carry, e.g. `@modelcontextprotocol/server-memory`. */
  readonly packageName: string;
  /** The manifest, given the entry script of the package's first bin (`./node_modules/...`). */
  readonly manifest: (entry: string) => Record<string, unknown> & { key: string };
}

/**
 * Writes a release folder holding `packageName` and its dependencies under
 * `node_modules/`, and the manifest `spec.manifest` makes; returns the folder and the entry
 * script of the package's first bin, relative to the release (`./node_modules/.../x.js`).
 * @example const { dir } = await packageRelease({ packageName, manifest });
 */
export async function packageRelease(
  spec: PackageReleaseSpec,
): Promise<{ dir: string; entry: string }> {
  const root = packageFolder(spec.packageName, REPO_ROOT);
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const bin =
    typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin ?? {})[0];
  const entry = `./${join(relative(REPO_ROOT, root), String(bin ?? manifest.main ?? 'index.js'))}`;
  const release = spec.manifest(entry);
  const dir = join(await tempDir('tutti-package-release-'), release.key);
  await mkdir(dir, { recursive: true });
  for (const folder of closure(root)) {
    const target = join(dir, relative(REPO_ROOT, folder));
    await mkdir(dirname(target), { recursive: true });
    // Without a nested node_modules: those packages are copied on their own, when needed.
    await cp(folder, target, {
      recursive: true,
      filter: (source) => !relative(folder, source).split(/[\\/]/).includes('node_modules'),
    });
  }
  await writeFile(join(dir, 'tutti-connector.json'), JSON.stringify(release, null, 2));
  return { dir, entry };
}
