import { mkdir, mkdtemp, readdir, readlink, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createSkillPlugin } from './skill-plugin-folder.js';

const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function skillRoot(names: string[]): Promise<string> {
  const root = await mkdtemp(join(tmpdir(), 'tutti-skills-'));
  made.push(root);
  for (const name of names) {
    await mkdir(join(root, name));
    await writeFile(join(root, name, 'SKILL.md'), `---\nname: ${name}\ndescription: d\n---\n`);
  }
  return root;
}

describe('createSkillPlugin', () => {
  it('makes the same folder again over one a previous start left (a restored session)', async () => {
    const first = await skillRoot(['alpha']);
    const second = await skillRoot(['beta']);
    const session = await mkdtemp(join(tmpdir(), 'tutti-session-'));
    made.push(session);
    const dir = join(session, 'claude-skills');
    await createSkillPlugin([first], { dir });
    const again = await createSkillPlugin([second], { dir });
    expect(again.skills).toEqual(['beta']);
    expect(await readdir(join(dir, 'skills'))).toEqual(['beta']);
    expect(await readlink(join(dir, 'skills', 'beta'))).toBe(join(second, 'beta'));
    expect(await readdir(join(dir, '.claude-plugin'))).toEqual(['plugin.json']);
  });
});
