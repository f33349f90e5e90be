/**
 * The agent descriptor: one ACP agent as data (docs/agent-descriptors.md). This zod schema
 * is the source of `docs/agent-descriptor.schema.json` (a test keeps the two equal); every
 * refusal names the field and says how to fix it.
 */
import { z } from 'zod';
import { env, envName, home, insideHome, overlaps } from './home-schema.js';

const skills = z.discriminatedUnion('via', [
  z
    .object({
      via: z.literal('home'),
      dir: insideHome('skills.dir').describe('The agent skills folder inside its home.'),
      yamlList: z
        .object({
          file: insideHome('skills.yamlList.file')
            .refine(
              (file) => /\.ya?ml$/i.test(file),
              'skills.yamlList.file must be a YAML config file of the home (ending in .yaml or .yml)',
            )
            .describe('The YAML config file of the home (e.g. config.yaml).'),
          key: z
            .string()
            .regex(
              /^[A-Za-z0-9_-]+(\.[A-Za-z0-9_-]+)*$/,
              'use the dotted path of a list of strings, e.g. "skills.external_dirs"',
            )
            .describe('The dotted path of the string list in it.'),
        })
        .strict()
        .optional()
        .describe(
          "A YAML string list the bound session's skills folder is added to (skills.external_dirs of config.yaml): the home's file, a linked user file replaced by a merged copy.",
        ),
      readAt: z
        .enum(['session', 'start'])
        .optional()
        .describe(
          'When the agent reads its skills (and the yamlList file): at session/new (default), or only when its process starts (linked and merged before the start; the agent is started again if the session turns out plain).',
        ),
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
      readAt: z
        .enum(['session', 'start'])
        .optional()
        .describe(
          'When the agent reads the file: at session/new (default), or only when its process starts (written before the start; the agent is started again if the prepared session differs).',
        ),
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
  z
    .object({ via: z.literal('system-prompt') })
    .strict()
    .describe('The ACP systemPrompt field in append mode, to an agent that declares it.'),
  z.object({ via: z.literal('none') }).strict(),
]);

/** A dotted path into an ACP tool call. */
const fieldPath = z
  .string()
  .regex(
    /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/,
    'use a dotted path such as "_meta.toolName"',
  );

const permissionFile = z.union([
  z
    .object({
      merge: z
        .record(z.string(), z.unknown())
        .describe(
          'Settings deep-merged over the user file of that name (JSON, or TOML for .toml); an "{each}" key applies to every entry the table has.',
        ),
    })
    .strict(),
  z.object({ text: z.string().describe('The file as it is written.') }).strict(),
]);

const permissionMode = z
  .object({
    files: z
      .record(insideHome('a permission file'), permissionFile)
      .default({})
      .describe('Files of the session home written before the agent starts, by relative path.'),
    meta: z
      .array(
        z
          .object({
            path: z.string().min(1).describe('Dotted path in session/new _meta.'),
            value: z.unknown().describe('What goes there.'),
          })
          .strict(),
      )
      .default([])
      .describe('Values put into the _meta of session/new, load and resume.'),
  })
  .strict();

const permissions = z
  .object({
    modes: z
      .object({ ask: permissionMode.optional(), 'allow-connector': permissionMode.optional() })
      .strict()
      .describe(
        'The modes (besides agent) the agent keeps, each with what makes it ask before every tool call; checked by the real effect in its tests.',
      ),
    identity: z
      .array(
        z.union([
          z
            .object({ name: fieldPath.describe('Where the agent puts its own tool name.') })
            .strict(),
          z
            .object({
              server: fieldPath.describe('Where it puts the MCP server.'),
              tool: fieldPath.describe('Where it puts the tool.'),
            })
            .strict(),
        ]),
      )
      .default([])
      .describe(
        'Fields of a tool call the agent fills with its own identity of the tool, first filled wins; never a title, description or the model input. Empty: no call is proven a connector tool.',
      ),
    toolNames: z
      .array(
        z
          .string()
          .refine(
            (form) => form.includes('{server}') && form.includes('{tool}'),
            'use a form with {server} and {tool}, e.g. "mcp__{server}__{tool}"',
          ),
      )
      .default([])
      .describe(
        'How the agent names an MCP tool in a name identity; a final * lets anything follow.',
      ),
    bridges: z
      .array(z.string().min(1))
      .default([])
      .describe(
        'Its own tools that run another tool which only the permission request names (Qwen tool_call).',
      ),
    clearEnv: z
      .array(envName)
      .default([])
      .describe(
        'Variables that would override what the modes write: removed from its environment.',
      ),
  })
  .strict();

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
    registryIds: z
      .array(
        z
          .string()
          .regex(
            /^[a-z][a-z0-9-]{0,63}$/,
            'use an ACP registry id (lowercase letters, digits, "-")',
          ),
      )
      .default([])
      .describe(
        'Ids of the public ACP agent registry this descriptor extends: an agent installed from one of those entries gets this descriptor (its home, skills, guidance, permissions) with the entry command.',
      ),
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
      .optional()
      .describe(
        'A command on PATH, or a package bin. Absent only in a descriptor that extends an installed agent (its registry entry supplies the command).',
      ),
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
    sessionMode: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The ACP session mode set after session/new, load and resume (session/set_mode), e.g. an ask-first mode so the daemon permission policy decides.',
      ),
    permissions: permissions
      .optional()
      .describe(
        'How the agent is made to ask the daemon before its tools run, and where it names a tool in fields of its own. Absent: the daemon cannot make it ask, so its sessions take "permissions": "agent" only.',
      ),
    listChanged: z
      .boolean()
      .default(false)
      .describe('Its MCP client re-lists on notifications/tools/list_changed.'),
    liveReload: z
      .boolean()
      .default(true)
      .describe(
        'A live session takes a new binding through session/resume or session/load in the running process; false: it asks for a resume or restart instead.',
      ),
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
  )
  .superRefine((descriptor, context) => {
    const { home, skills, guidance } = descriptor;
    if (!home) return;
    const written: [string, string][] = [];
    if (skills.via === 'home') written.push(['skills.dir', skills.dir]);
    if (guidance.via === 'home-file') written.push(['guidance.file', guidance.file]);
    for (const [index, entry] of (home.copy ?? []).entries()) {
      for (const [field, path] of written.filter(([, path]) => overlaps(entry, path))) {
        context.addIssue({
          code: 'custom',
          path: ['home', 'copy', index],
          message: `"${entry}" overlaps ${field} "${path}", which the session writes itself: remove it from home.copy`,
        });
      }
    }
    const list = skills.via === 'home' ? skills.yamlList : undefined;
    const fixed = [...home.keep, ...(home.writeBack ?? [])];
    const kept = list && fixed.find((name) => overlaps(list.file, name));
    if (list && kept !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['skills', 'yamlList', 'file'],
        message: `"${list.file}" overlaps "${kept}", which stays the user's (home.keep or home.writeBack): name a config file the session may change (copy it with home.copy)`,
      });
    }
  });

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
  if (issue?.code === 'invalid_key') {
    // A record key that failed its own check: say that check's message, not zod's.
    problem = issue.issues[0]?.message ?? problem;
  } else if (issue?.code === 'unrecognized_keys') {
    problem = `unknown field ${issue.keys.map((key) => `"${key}"`).join(', ')}: remove it (docs/agent-descriptors.md lists the fields)`;
  } else if (issue && missing(issue)) {
    problem = 'missing: add it (docs/agent-descriptors.md says what it holds)';
  }
  return { field, problem };
}
