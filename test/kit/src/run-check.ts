/**
 * Runs one of the root package's `check:*` scripts, exactly as `npm run check` does, in a
 * tiny temp project, so a test can show the check fails on what it guards against.
 */
import { spawnSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { readFileSync } from 'node:fs';
import { REPO_ROOT as root } from './paths.js';

const scripts = (
  JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>;
  }
).scripts;

/** A temp project made of `files` (path -> content), removed by {@link removeProjects}. */
export async function tempProject(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'tutti-check-'));
  projects.push(dir);
  for (const [path, content] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), content);
  }
  return dir;
}

const projects: string[] = [];

/** Removes every project {@link tempProject} made. */
export async function removeProjects(): Promise<void> {
  for (const dir of projects.splice(0)) await rm(dir, { recursive: true, force: true });
}

/** Runs the root's script `name` in `cwd` with the repository's tools on PATH. */
export function runCheck(name: string, cwd: string): { status: number | null; output: string } {
  const script = scripts[name];
  if (!script) throw new Error(`package.json has no script ${name}`);
  const result = spawnSync('sh', ['-c', script], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, PATH: `${join(root, 'node_modules/.bin')}:${process.env.PATH ?? ''}` },
  });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
