import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { agentDescriptorSchema } from './descriptor-schema.js';
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
    ['a missing command', { id: 'x', name: 'X' }, 'command: missing: add the command, or install the registry agent'],
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
