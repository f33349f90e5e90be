/**
 * The agent descriptor: one ACP agent as data (docs/agent-descriptors.md). This zod schema
 * is the source of `docs/agent-descriptor.schema.json` (a test keeps the two equal); every
 * refusal names the field and says how to fix it.
 */
import { isAbsolute, normalize } from 'node:path';
import { z } from 'zod';

/** A path relative to the session home that stays inside it. */
const insideHome = (what: string) =>
  z
    .string()
    .min(1)
    .refine(
      (value) => !isAbsolute(value) && !normalize(value).startsWith('..'),
      `${what} must be a relative path inside the session home (no "..", not absolute)`,
    );

const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'use an environment variable name ([A-Za-z_][A-Za-z0-9_]*)');
const env = z.record(envName, z.string());

const home = z
  .object({
    env: envName.describe('The variable that points the agent at its session home.'),
    mode: z
      .enum(['adds', 'replaces'])
      .describe('adds: the agent reads it beside the user folder; replaces: instead of it.'),
    user: z
      .array(z.string().min(1))
      .min(1)
      .describe('Where the user folder is, first that resolves: "$VAR", "$VAR/sub", "~/.agent".'),
    link: z
      .array(insideHome('a linked entry'))
      .default([])
      .describe('Entries of the user folder linked into the home ("replaces" links every entry).'),
    keep: z
      .array(insideHome('a kept entry'))
      .default([])
      .describe('Entries the agent writes and needs later: kept in the user folder, linked.'),
    seed: z
      .record(insideHome('a seeded file'), z.string())
      .default({})
      .describe('Files written into the home; a name ending in "/" is a folder.'),
  })
  .strict();

const skills = z.discriminatedUnion('via', [
  z
    .object({
      via: z.literal('home'),
      dir: insideHome('skills.dir').describe('The agent skills folder inside its home.'),
    })
    .strict(),
  z
    .object({
      via: z.literal('claude-plugin'),
      path: z.string().min(1).describe('Dotted path in session/new _meta.'),
      value: z.unknown().describe('What goes there; "{dir}" is the plugin folder.'),
    })
    .strict(),
  z.object({ via: z.literal('none') }).strict(),
]);

const guidance = z.discriminatedUnion('via', [
  z
    .object({
      via: z.literal('home-file'),
      file: insideHome('guidance.file'),
      include: insideHome('guidance.include')
        .optional()
        .describe('The user instructions file (in the user folder) whose text comes first.'),
    })
    .strict(),
  z
    .object({
      via: z.literal('config-file'),
      file: insideHome('guidance.file'),
      config: insideHome('guidance.config'),
      value: z
        .record(z.string(), z.unknown())
        .describe('JSON of the config; "{file}" is the file.'),
    })
    .strict(),
  z
    .object({
      via: z.literal('meta'),
      path: z.string().min(1).describe('Dotted path in session/new _meta.'),
      value: z.unknown().describe('What goes there; "{guidance}" is the text.'),
    })
    .strict(),
  z.object({ via: z.literal('none') }).strict(),
]);

/** Zod schema of one agent descriptor file. */
export const agentDescriptorSchema = z
  .object({
    $schema: z.string().optional(),
    id: z
      .string()
      .regex(
        /^[a-z0-9][a-z0-9-]{0,39}$/,
        'use 1-40 lowercase letters, digits or "-": the provider name sessions ask for',
      ),
    name: z.string().min(1).max(80).describe('Display name.'),
    command: z
      .union([
        z.string().min(1),
        z
          .object({
            package: z.string().min(1).describe('An npm package that ships the agent.'),
            bin: z.string().min(1).describe('Its bin entry.'),
          })
          .strict(),
      ])
      .describe('A command on PATH, or a package bin.'),
    args: z.array(z.string()).default([]),
    env: env.default({}).describe('Environment the agent always gets (offline, telemetry).'),
    home: home.optional(),
    skills: skills.default({ via: 'none' }),
    guidance: guidance.default({ via: 'none' }),
    settings: z
      .record(
        z.string().regex(/^[a-z][a-zA-Z0-9-]*$/, 'use a setting name like "trust-workspace"'),
        z
          .object({
            description: z.string().min(1),
            env: env.optional(),
            args: z.array(z.string()).optional(),
          })
          .strict(),
      )
      .default({})
      .describe('Settings a session turns on by name (never set silently), e.g. folder trust.'),
    timeouts: z
      .object({
        initializeMs: z.number().int().min(100).max(600_000).optional(),
        requestMs: z.number().int().min(100).max(3_600_000).optional(),
      })
      .strict()
      .default({}),
    listChanged: z
      .boolean()
      .default(false)
      .describe('Its MCP client re-lists on notifications/tools/list_changed.'),
    notes: z.array(z.string()).default([]).describe('Known traps, for people.'),
  })
  .strict()
  .refine(
    (descriptor) =>
      !(
        (descriptor.skills.via === 'home' ||
          descriptor.guidance.via === 'home-file' ||
          descriptor.guidance.via === 'config-file') &&
        !descriptor.home
      ),
    { message: 'skills or guidance written into the home need a "home"', path: ['home'] },
  );

/** One parsed agent descriptor. */
export type AgentDescriptorFile = z.infer<typeof agentDescriptorSchema>;

/** True when the issue is a required field that is absent (also for a union's field). */
function missing(issue: z.core.$ZodIssue): boolean {
  if (issue.code === 'invalid_type') return issue.message.includes('received undefined');
  if (issue.code === 'invalid_union') {
    return issue.errors.every((branch) => branch.some((inner) => missing(inner)));
  }
  return false;
}

/** The refusal of a bad descriptor: the field and the fix, as one sentence. */
export function descriptorProblem(error: z.ZodError): { field: string; problem: string } {
  const issue = error.issues[0];
  const field = issue?.path.length ? issue.path.join('.') : '(descriptor)';
  let problem = issue?.message ?? 'not valid';
  if (issue?.code === 'unrecognized_keys') {
    problem = `unknown field ${issue.keys.map((key) => `"${key}"`).join(', ')}: remove it (docs/agent-descriptors.md lists the fields)`;
  } else if (issue && missing(issue)) {
    problem = 'missing: add it (docs/agent-descriptors.md says what it holds)';
  }
  return { field, problem };
}
