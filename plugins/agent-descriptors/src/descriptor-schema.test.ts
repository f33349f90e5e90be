import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentDescriptorSchema, descriptorProblem } from './descriptor-schema.js';
import { SHIPPED_DESCRIPTORS } from './index.js';
import { loadDescriptor } from './load-descriptors.js';

const DOC = new URL('../../../docs/agent-descriptor.schema.json', import.meta.url);
const PAGE = new URL('../../../docs/agent-descriptors.md', import.meta.url);

/** Every property name and `via` value of a JSON Schema, nested ones too. */
function namesIn(schema: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(schema)) for (const item of schema) namesIn(item, into);
  else if (schema && typeof schema === 'object') {
    const node = schema as Record<string, unknown>;
    if (node.properties && typeof node.properties === 'object') {
      for (const name of Object.keys(node.properties)) into.add(name);
      const via = (node.properties as Record<string, { const?: unknown }>).via?.const;
      if (typeof via === 'string') into.add(via);
    }
    for (const value of Object.values(node)) namesIn(value, into);
  }
  return into;
}

describe('agent descriptor schema', () => {
  it('is published in docs as the JSON Schema of the zod schema', async () => {
    const published = JSON.parse(await readFile(DOC, 'utf8'));
    expect(published).toEqual({
      title: 'tutti agent descriptor',
      ...z.toJSONSchema(agentDescriptorSchema, { io: 'input', unrepresentable: 'any' }),
    });
  });

  it('names every field and delivery of the schema in docs/agent-descriptors.md', async () => {
    const page = await readFile(PAGE, 'utf8');
    const names = namesIn(JSON.parse(await readFile(DOC, 'utf8')));
    expect(names.size).toBeGreaterThan(20);
    for (const name of names) expect(page, name).toContain(`\`${name}\``);
  });

  it('accepts every shipped descriptor, by zod and by the published JSON Schema', async () => {
    const validate = new Ajv2020({ strict: false }).compile(
      JSON.parse(await readFile(DOC, 'utf8')) as object,
    );
    const files = (await readdir(SHIPPED_DESCRIPTORS)).filter((name) => name.endsWith('.json'));
    expect(files.length).toBeGreaterThan(0);
    for (const file of files) {
      const json = JSON.parse(await readFile(join(SHIPPED_DESCRIPTORS, file), 'utf8'));
      expect(agentDescriptorSchema.safeParse(json).success, file).toBe(true);
      expect(validate(json), `${file}: ${JSON.stringify(validate.errors)}`).toBe(true);
      expect(`${json.id}.json`).toBe(file);
    }
  });
});

describe('loadDescriptor', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'tutti-descriptors-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const good = {
    id: 'my-agent',
    name: 'My agent',
    command: process.execPath,
    args: ['agent.mjs'],
  };

  async function refusal(json: unknown) {
    const file = join(dir, `case-${Math.random().toString(36).slice(2)}.json`);
    await writeFile(file, typeof json === 'string' ? json : JSON.stringify(json));
    const load = await loadDescriptor(file);
    if (!('error' in load)) throw new Error('the descriptor was accepted');
    return load.error;
  }

  it('turns a good descriptor into what the ACP engine runs', async () => {
    const file = join(dir, 'good.json');
    await writeFile(file, JSON.stringify(good));
    const load = await loadDescriptor(file);
    expect(load).toMatchObject({
      title: 'My agent',
      descriptor: { name: 'my-agent', command: process.execPath, args: ['agent.mjs'] },
    });
  });

  it.each([
    [
      'an unknown field',
      { ...good, colour: 'blue' },
      '(descriptor): unknown field "colour": remove it',
    ],
    [
      'a command that is not installed',
      { ...good, command: 'no-such-agent-binary' },
      'command: "no-such-agent-binary" is not installed (not on PATH): install the agent or put it on PATH',
    ],
    [
      'a package that is not installed',
      { ...good, command: { package: 'no-such-package', bin: 'nope' } },
      'command: "nope" of the npm package no-such-package is not installed',
    ],
    [
      'a skills folder outside the session folder',
      {
        ...good,
        home: { env: 'AGENT_HOME', mode: 'adds', user: ['~/.agent'] },
        skills: { via: 'home', dir: '../../elsewhere' },
      },
      'skills.dir: skills.dir must be a relative path inside the session home',
    ],
    [
      'an absolute skills folder',
      {
        ...good,
        home: { env: 'AGENT_HOME', mode: 'adds', user: ['~/.agent'] },
        skills: { via: 'home', dir: '/etc/agent-skills' },
      },
      'skills.dir: skills.dir must be a relative path inside the session home',
    ],
    [
      'an absolute guidance file',
      {
        ...good,
        home: { env: 'AGENT_HOME', mode: 'adds', user: ['~/.agent'] },
        guidance: { via: 'home-file', file: '/etc/AGENT.md' },
      },
      'guidance.file: guidance.file must be a relative path inside the session home',
    ],
    [
      'skills in the home without a home',
      { ...good, skills: { via: 'home', dir: 'skills' } },
      'home: skills or guidance written into the home need a "home"',
    ],
    ['text that is not JSON', '{ "id": ', '(file): it is not JSON'],
  ])('refuses %s, naming the field and the fix', async (_name, json, expected) => {
    const error = await refusal(json);
    expect(error.code).toBe('TUTTI_ERR_PLUGIN_BAD_DESCRIPTOR');
    expect(error.message).toContain(expected);
  });
});

describe('the overlay fields', () => {
  const base = {
    id: 'my-agent',
    name: 'My agent',
    command: 'my-agent',
    home: { env: 'MY_AGENT_HOME', mode: 'replaces', user: ['~/.my-agent'], keep: ['sessions'] },
    skills: {
      via: 'home',
      dir: 'tutti-skills',
      yamlList: { file: 'config.yaml', key: 'skills.external_dirs' },
    },
  };
  const withHome = (home: Record<string, unknown>) => ({
    ...base,
    home: { ...base.home, ...home },
  });
  const withList = (yamlList: Record<string, unknown>) => ({
    ...base,
    skills: { ...base.skills, yamlList },
  });

  /** The refusal of `json` as "field: problem", or undefined when it is accepted. */
  function refusal(json: unknown): string | undefined {
    const parsed = agentDescriptorSchema.safeParse(json);
    if (parsed.success) return undefined;
    const { field, problem } = descriptorProblem(parsed.error);
    return `${field}: ${problem}`;
  }

  it('accepts copied config entries and a YAML skill list', () => {
    expect(refusal(withHome({ copy: ['config.yaml', 'profiles/', 'keybindings.json'] }))).toBe(
      undefined,
    );
  });

  it.each([
    'auth.json',
    'oauth_creds.json',
    'Tokens',
    'profiles/credentials.json',
    'client_secret.json',
    'passwords.txt',
    'cookies.sqlite',
    'sessions',
    'api_key.txt',
    'server.key',
    'cert.pem',
    '.env',
    '.env.local',
    'id_ed25519',
    '.npmrc',
  ])('refuses to copy %s, which looks like a credential, saying to link it', (entry) => {
    expect(refusal(withHome({ copy: [entry] }))).toMatch(
      /^home\.copy\.0: ".+" looks like a credential: link it instead \(credentials stay linked, never copied\)$/,
    );
  });

  it.each([
    [
      'an absolute path',
      { copy: ['/etc/passwd.conf'] },
      'home.copy.0: a copied entry must be a relative path',
    ],
    [
      'a path out of the folder',
      { copy: ['../other/config.yaml'] },
      'home.copy.0: a copied entry must be a relative path',
    ],
    [
      'the user folder itself',
      { copy: ['./'] },
      'home.copy.0: name an entry of the user folder (a file or folder in it), not the folder itself',
    ],
    [
      'a linked entry',
      { link: ['config'], copy: ['config/app.yaml'] },
      'home.copy.0: "config/app.yaml" overlaps "config" of home.link',
    ],
    [
      'a kept entry',
      { copy: ['history'], keep: ['history'] },
      'home.copy.0: "history" overlaps "history" of home.keep',
    ],
    [
      'a seeded file',
      { copy: ['config.yaml'], seed: { 'config.yaml': '' } },
      'home.copy.0: "config.yaml" overlaps "config.yaml" of home.seed',
    ],
    [
      'a written-back file',
      { copy: ['settings.json'], writeBack: ['settings.json'] },
      'home.copy.0: "settings.json" overlaps "settings.json" of home.writeBack',
    ],
    [
      'the skills folder',
      { copy: ['tutti-skills'] },
      'home.copy.0: "tutti-skills" overlaps skills.dir "tutti-skills", which the session writes itself',
    ],
  ])('refuses a copy of %s, naming the field and the fix', (_name, home, expected) => {
    expect(refusal(withHome(home))).toContain(expected);
  });

  it.each([
    'PATH',
    'HOME',
    'LD_PRELOAD',
    'LD_LIBRARY_PATH',
    'NODE_OPTIONS',
    'DYLD_INSERT_LIBRARIES',
  ])('refuses %s as the variable of a session home', (name) => {
    expect(refusal(withHome({ env: name }))).toBe(
      `home.env: "${name}" changes how every program the agent runs starts, not only where it keeps its config: name the agent's own config folder variable (CODEX_HOME, QWEN_HOME)`,
    );
  });

  it.each([
    ['env', 'NODE_OPTIONS'],
    ['env', 'ld_preload'],
    ['env', 'GIT_SSH_COMMAND'],
    ['env', 'EDITOR'],
    ['env', 'PYTHONSTARTUP'],
    ['settings.trust.env', 'npm_config_registry'],
  ])('refuses a descriptor %s that sets %s, which loads other code', (where, name) => {
    const descriptor =
      where === 'env'
        ? { ...withHome({}), env: { [name]: 'x' } }
        : { ...withHome({}), settings: { trust: { description: 'Trust', env: { [name]: 'x' } } } };
    expect(refusal(descriptor)).toContain(
      `${where}.${name}: this variable makes the agent, or a program it runs, load or run other code`,
    );
  });

  it.each([
    [
      'a file that is not YAML',
      { file: 'config.json', key: 'skills' },
      'skills.yamlList.file: skills.yamlList.file must be a YAML config file',
    ],
    [
      'a file outside the home',
      { file: '../config.yaml', key: 'skills' },
      'skills.yamlList.file: skills.yamlList.file must be a relative path',
    ],
    [
      'a key that is not a dotted path',
      { file: 'config.yaml', key: 'skills..dirs' },
      'skills.yamlList.key: use the dotted path of a list of strings',
    ],
    [
      'a kept file',
      { file: 'sessions/config.yaml', key: 'skills' },
      'skills.yamlList.file: "sessions/config.yaml" overlaps "sessions", which stays the user\'s',
    ],
  ])(
    'refuses a YAML skill list in %s, naming the field and the fix',
    (_name, yamlList, expected) => {
      expect(refusal(withList(yamlList))).toContain(expected);
    },
  );
});
