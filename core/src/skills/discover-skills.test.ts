import { mkdir, mkdtemp, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { discoverSkills } from './discover-skills.js';

let base: string;
let release: string;

beforeEach(async () => {
  base = await realpath(await mkdtemp(join(tmpdir(), 'tutti-skills-')));
  release = join(base, 'release');
  await mkdir(release);
});

afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

async function put(path: string, text: string): Promise<void> {
  await mkdir(dirname(join(release, path)), { recursive: true });
  await writeFile(join(release, path), text);
}

const skill = (name: string, description: string, heading = '') =>
  `---\nname: ${name}\ndescription: ${description}\n---\n${heading ? `\n# ${heading}\n` : ''}\nBody.\n`;

describe('discoverSkills', () => {
  it('summarizes skills/*/SKILL.md by frontmatter and first heading, sorted by name', async () => {
    await put('skills/b/SKILL.md', skill('github-workflow', 'Work with issues', 'GitHub Workflow'));
    await put(
      'skills/a/SKILL.md',
      '---\r\nname: "alpha"\r\ndescription: >\r\n  Folded\r\n  text\r\nmetadata:\r\n  owner: x\r\n---\r\n```\r\n# not a heading\r\n```\r\n# Alpha Title #\r\n',
    );
    const found = await discoverSkills(release, 'skills');
    expect(found).toEqual({
      root: join(release, 'skills'),
      skills: [
        { name: 'alpha', title: 'Alpha Title', description: 'Folded text' },
        { name: 'github-workflow', title: 'GitHub Workflow', description: 'Work with issues' },
      ],
      diagnostics: [],
    });
  });

  it('uses the name as title when the body has no heading, and reads quoted values', async () => {
    await put(
      'skills/x/SKILL.md',
      `---\nname: 'x'\ndescription: 'it''s: quoted' # note\n---\ntext\n`,
    );
    const { skills } = await discoverSkills(release, 'skills');
    expect(skills).toEqual([{ name: 'x', title: 'x', description: "it's: quoted" }]);
  });

  it('has no root and no diagnostics when the release ships no skills folder', async () => {
    expect(await discoverSkills(release, 'skills')).toEqual({
      root: undefined,
      skills: [],
      diagnostics: [],
    });
  });

  it('skips malformed skills with a diagnostic each and keeps the valid ones', async () => {
    await put('skills/ok/SKILL.md', skill('ok', 'Fine'));
    await put('skills/nofm/SKILL.md', '# Just a heading\n');
    await put('skills/noname/SKILL.md', '---\ndescription: d\n---\n');
    await put('skills/badname/SKILL.md', skill('Bad Name', 'd'));
    await put('skills/dup/SKILL.md', skill('ok', 'Again'));
    const { skills, diagnostics } = await discoverSkills(release, 'skills');
    expect(skills.map((s) => s.name)).toEqual(['ok']);
    expect(diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['invalid-name', 'skills/badname/SKILL.md'],
      ['no-frontmatter', 'skills/nofm/SKILL.md'],
      ['missing-field', 'skills/noname/SKILL.md'],
      ['duplicate-name', 'skills/ok/SKILL.md'],
    ]);
  });

  it('stops at the skill count limit and says so', async () => {
    for (const name of ['a', 'b', 'c', 'd']) await put(`skills/${name}/SKILL.md`, skill(name, 'd'));
    const { skills, diagnostics } = await discoverSkills(release, 'skills', { maxSkills: 2 });
    expect(skills.map((s) => s.name)).toEqual(['a', 'b']);
    expect(diagnostics).toEqual([
      expect.objectContaining({ code: 'too-many-skills', path: 'skills/c/SKILL.md' }),
    ]);
  });

  it('stops walking at the entry limit and says so once', async () => {
    for (const name of ['a', 'b', 'c', 'd']) await put(`skills/${name}/SKILL.md`, skill(name, 'd'));
    const { skills, diagnostics } = await discoverSkills(release, 'skills', { maxEntries: 2 });
    expect(skills.map((s) => s.name)).toEqual(['a', 'b']);
    expect(diagnostics.map((d) => d.code)).toEqual(['too-many-entries']);
  });

  it('reports a SKILL.md that is not a file as unreadable', async () => {
    await mkdir(join(release, 'skills', 'odd', 'SKILL.md'), { recursive: true });
    const { skills, diagnostics } = await discoverSkills(release, 'skills');
    expect(skills).toEqual([]);
    expect(diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['unreadable', 'skills/odd/SKILL.md'],
    ]);
  });

  it('skips a SKILL.md over the size limit', async () => {
    await put('skills/big/SKILL.md', skill('big', 'x'.repeat(2000)));
    await put('skills/small/SKILL.md', skill('small', 'y'));
    const { skills, diagnostics } = await discoverSkills(release, 'skills', { maxFileBytes: 1000 });
    expect(skills.map((s) => s.name)).toEqual(['small']);
    expect(diagnostics[0]).toMatchObject({ code: 'too-large', path: 'skills/big/SKILL.md' });
    expect(diagnostics[0]!.message).toContain('1000-byte limit');
  });

  it('finds grouped skills within the depth limit and skips deeper ones', async () => {
    await put('skills/group/inner/SKILL.md', skill('inner', 'd'));
    await put('skills/g/h/i/deep/SKILL.md', skill('deep', 'd'));
    const { skills, diagnostics } = await discoverSkills(release, 'skills', { maxDepth: 3 });
    expect(skills.map((s) => s.name)).toEqual(['inner']);
    expect(diagnostics).toEqual([
      expect.objectContaining({ code: 'too-deep', path: 'skills/g/h/i/deep' }),
    ]);
  });

  it('does not follow symlinks that leave the release, for folders or files', async () => {
    await mkdir(join(base, 'outside', 'evil'), { recursive: true });
    await writeFile(join(base, 'outside', 'evil', 'SKILL.md'), skill('evil', 'outside'));
    await put('skills/fine/SKILL.md', skill('fine', 'd'));
    await symlink(join(base, 'outside', 'evil'), join(release, 'skills', 'linked-dir'));
    await mkdir(join(release, 'skills', 'linked-file'));
    await symlink(
      join(base, 'outside', 'evil', 'SKILL.md'),
      join(release, 'skills', 'linked-file', 'SKILL.md'),
    );
    const { skills, diagnostics } = await discoverSkills(release, 'skills');
    expect(skills.map((s) => s.name)).toEqual(['fine']);
    expect(diagnostics.map((d) => [d.code, d.path])).toEqual([
      ['symlink-escape', 'skills/linked-dir'],
      ['symlink-escape', 'skills/linked-file/SKILL.md'],
    ]);
    expect(JSON.stringify(diagnostics)).not.toContain(base);
  });

  it('follows symlinks that stay inside the release, once', async () => {
    await put('shared/inside/SKILL.md', skill('inside', 'd'));
    await mkdir(join(release, 'skills'));
    await symlink(join(release, 'shared', 'inside'), join(release, 'skills', 'one'));
    await symlink('../skills', join(release, 'skills', 'loop'));
    const { skills } = await discoverSkills(release, 'skills');
    expect(skills.map((s) => s.name)).toEqual(['inside']);
  });

  it('refuses a skills folder outside the release, by path or by symlink', async () => {
    await mkdir(join(base, 'elsewhere', 'x'), { recursive: true });
    await writeFile(join(base, 'elsewhere', 'x', 'SKILL.md'), skill('x', 'd'));
    const byPath = await discoverSkills(release, '../elsewhere');
    expect(byPath.root).toBeUndefined();
    expect(byPath.diagnostics[0]!.code).toBe('folder-outside-release');
    await symlink(join(base, 'elsewhere'), join(release, 'skills'));
    const byLink = await discoverSkills(release, 'skills');
    expect(byLink).toMatchObject({ root: undefined, skills: [] });
    expect(byLink.diagnostics[0]!.code).toBe('symlink-escape');
  });
});
