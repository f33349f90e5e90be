import { lstat, mkdir, mkdtemp, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sessionFiles } from '@tutti/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { mergeSkillRoots, mergeYamlList } from './skill-roots-yaml.js';

const KEY = 'skills.external_dirs';

describe('merging skill roots into a YAML string list', () => {
  it("keeps the file's comments and the user's entries, and appends the root", () => {
    const text = [
      '# my agent',
      'model: big # the good one',
      'skills:',
      '  # where else skills are',
      '  external_dirs:',
      '    - ~/team-skills # shared',
      '',
    ].join('\n');
    const merged = mergeYamlList(text, KEY, ['/session/home/skills']);
    expect(merged).toEqual({
      text: [
        '# my agent',
        'model: big # the good one',
        'skills:',
        '  # where else skills are',
        '  external_dirs:',
        '    - ~/team-skills # shared',
        '    - /session/home/skills',
        '',
      ].join('\n'),
    });
  });

  it('adds a root already listed only once, and leaves the text as it was', () => {
    const text = 'skills:\n  external_dirs: [/a, /session/skills]\n';
    expect(mergeYamlList(text, KEY, ['/session/skills', '/session/skills'])).toEqual({ text });
    expect(mergeYamlList(text, KEY, ['/b', '/b'])).toEqual({
      text: 'skills:\n  external_dirs: [ /a, /session/skills, /b ]\n',
    });
  });

  it('creates the maps and the list along a missing path, in an empty file or beside other keys', () => {
    expect(mergeYamlList('', KEY, ['/s'])).toEqual({
      text: 'skills:\n  external_dirs:\n    - /s\n',
    });
    expect(mergeYamlList('model: x\nskills:\n', KEY, ['/s'])).toEqual({
      text: 'model: x\nskills:\n  external_dirs:\n    - /s\n',
    });
    expect(mergeYamlList('skills:\n  external_dirs:\n', KEY, ['/s'])).toEqual({
      text: 'skills:\n  external_dirs:\n    - /s\n',
    });
  });

  it.each([
    [
      'a value that is not a list',
      'skills:\n  external_dirs: ~/skills\n',
      `${KEY} is not a list of strings`,
    ],
    [
      'a list of other values',
      'skills:\n  external_dirs: [1, {a: b}]\n',
      `${KEY} is not a list of strings`,
    ],
    [
      'a value on the way that is not a map',
      'skills: true\n',
      `a value on the way to ${KEY} is not a map`,
    ],
    ['a file that is a list', '- a\n', `a value on the way to ${KEY} is not a map`],
    ['text that is not YAML', 'skills: [unclosed\n', 'it is not valid YAML'],
  ])('refuses %s, saying why', (_name, text, problem) => {
    const merged = mergeYamlList(text, KEY, ['/s']);
    expect('problem' in merged && merged.problem).toContain(problem);
  });
});

describe("the session home's YAML skill list", () => {
  let root: string;
  let user: string;
  let warnings: string[];
  const logger = {
    warn: (_fields: Record<string, unknown>, message: string) => warnings.push(message),
  };

  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'tutti-skill-yaml-'));
    user = join(root, 'user');
    await mkdir(user);
    await mkdir(join(root, 'session', 'home'), { recursive: true });
    warnings = [];
  });

  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
  });

  const files = () => sessionFiles(join(root, 'session'));
  const list = { file: 'config.yaml', key: KEY };

  it("replaces a link to the user's file by a merged copy (0600), and never writes the user's file", async () => {
    const original = '# mine\nskills:\n  external_dirs:\n    - ~/mine\n';
    await writeFile(join(user, 'config.yaml'), original);
    const before = await readFile(join(user, 'config.yaml'));
    const home = join(root, 'session', 'home');
    await symlink(join(user, 'config.yaml'), join(home, 'config.yaml'));
    await mergeSkillRoots(files(), 'home', list, ['/session/home/skills'], logger);
    expect((await lstat(join(home, 'config.yaml'))).isFile()).toBe(true);
    expect((await stat(join(home, 'config.yaml'))).mode & 0o777).toBe(0o600);
    expect(await readFile(join(home, 'config.yaml'), 'utf8')).toBe(
      `${original}    - /session/home/skills\n`,
    );
    expect((await readFile(join(user, 'config.yaml'))).equals(before)).toBe(true);
    expect(warnings).toEqual([]);
  });

  it("writes into a folder linked from the user's folder only after making it the home's own", async () => {
    await mkdir(join(user, 'conf'));
    await writeFile(join(user, 'conf', 'config.yaml'), 'a: 1\n');
    await writeFile(join(user, 'conf', 'other.txt'), 'kept\n');
    const home = join(root, 'session', 'home');
    await symlink(join(user, 'conf'), join(home, 'conf'));
    await mergeSkillRoots(files(), 'home', { file: 'conf/config.yaml', key: KEY }, ['/s'], logger);
    expect(await readFile(join(home, 'conf', 'config.yaml'), 'utf8')).toBe(
      'a: 1\nskills:\n  external_dirs:\n    - /s\n',
    );
    expect(await readFile(join(home, 'conf', 'other.txt'), 'utf8')).toBe('kept\n');
    expect(await readFile(join(user, 'conf', 'config.yaml'), 'utf8')).toBe('a: 1\n');
  });

  it('leaves a file whose value is not a list of strings as it is, with a warning', async () => {
    const home = join(root, 'session', 'home');
    await writeFile(join(home, 'config.yaml'), 'skills:\n  external_dirs: 3\n');
    await mergeSkillRoots(files(), 'home', list, ['/s'], logger);
    expect(await readFile(join(home, 'config.yaml'), 'utf8')).toBe('skills:\n  external_dirs: 3\n');
    expect(warnings).toEqual([
      "skills.yamlList: the connector skill roots were not added to skills.external_dirs of config.yaml in the session home: skills.external_dirs is not a list of strings; the agent finds no connector skills through it (fix the file, or the descriptor's key)",
    ]);
  });

  it('creates the file when the home has none', async () => {
    await mergeSkillRoots(files(), 'home', list, ['/s'], logger);
    expect(await readFile(join(root, 'session', 'home', 'config.yaml'), 'utf8')).toBe(
      'skills:\n  external_dirs:\n    - /s\n',
    );
  });
});
