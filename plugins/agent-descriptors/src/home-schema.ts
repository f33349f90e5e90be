/**
 * The parts of the agent descriptor schema about the session home: paths that stay inside
 * it, variable names (never one that loads code, never a startup variable as the home's),
 * the entries copied from the user's folder (never a credential) and the `home` object.
 */
import { isAbsolute, normalize } from 'node:path';
import { variableLoadsCode } from '@tutti/core';
import { credentialSegment } from '@tutti/provider-acp';
import { z } from 'zod';

/** A path relative to the session home that stays inside it. */
export const insideHome = (what: string) =>
  z
    .string()
    .min(1)
    .refine(
      (value) => !isAbsolute(value) && !normalize(value).startsWith('..'),
      `${what} must be a relative path inside the session home (no "..", not absolute)`,
    );

export const envName = z
  .string()
  .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'use an environment variable name ([A-Za-z_][A-Za-z0-9_]*)');
export const env = z.record(
  envName.refine(
    (name) => !variableLoadsCode(name),
    'this variable makes the agent, or a program it runs, load or run other code (a preload, a module path, startup options, a command such as an editor or a git helper): a descriptor sets switches only; remove it',
  ),
  z.string(),
);

/** Variables that change how every program starts: never the name of a session home. */
const STARTUP_VARIABLES =
  /^(PATH|HOME|USERPROFILE|SHELL|ENV|BASH_ENV|NODE_OPTIONS|NODE_PATH|PYTHONPATH|PYTHONHOME|PYTHONSTARTUP|LD_\w*|DYLD_\w*)$/i;

/** A path as the overlap checks compare it: normalized, no trailing "/". */
export const clean = (path: string) => normalize(path).replace(/\/+$/, '');

/** True when one of two home paths is the other or inside it. */
export function overlaps(one: string, other: string): boolean {
  const [a, b] = [clean(one), clean(other)];
  return a === b || a.startsWith(`${b}/`) || b.startsWith(`${a}/`);
}

/** An entry of the user folder copied into the home: never one that looks like a credential. */
const copyEntry = insideHome('a copied entry').superRefine((path, context) => {
  if (clean(path) === '.') {
    context.addIssue({
      code: 'custom',
      message: 'name an entry of the user folder (a file or folder in it), not the folder itself',
    });
  }
  const segment = credentialSegment(path);
  if (segment) {
    context.addIssue({
      code: 'custom',
      message: `"${segment}" looks like a credential: link it instead (credentials stay linked, never copied)`,
    });
  }
});

export const home = z
  .object({
    env: envName
      .superRefine((name, context) => {
        if (STARTUP_VARIABLES.test(name)) {
          context.addIssue({
            code: 'custom',
            message: `"${name}" changes how every program the agent runs starts, not only where it keeps its config: name the agent's own config folder variable (CODEX_HOME, QWEN_HOME)`,
          });
        }
      })
      .describe('The variable that points the agent at its session home.'),
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
      .record(
        insideHome('a seeded file'),
        z.union([
          z.string(),
          z
            .object({
              file: z
                .string()
                .min(1)
                .describe('A file the signed extension declared, by its path in the package.'),
            })
            .strict(),
        ]),
      )
      .default({})
      .describe(
        'Files written into the home (a name ending in "/" is a folder): the text, or {"file"} of a signed extension\'s package.',
      ),
    subdir: insideHome('home.subdir')
      .optional()
      .describe(
        'Where the mirror of the user folder sits inside the home the variable names (".gemini" for a variable that stands for the home directory); every other home path is inside it.',
      ),
    alsoLink: z
      .record(insideHome('an alsoLink name'), z.array(z.string().min(1)).min(1))
      .optional()
      .describe(
        'Other user paths linked into the home when they exist: name in the home -> candidates ("~/.agents").',
      ),
    writeBack: z
      .array(insideHome('a writeBack entry'))
      .optional()
      .describe(
        'Linked user files the agent may replace by a rename (a refreshed login): copied back when the session ends.',
      ),
    copy: z
      .array(copyEntry)
      .optional()
      .describe(
        'Non-secret entries of the user folder (files, or folders copied whole) copied into the home, so the session may change them (a config.yaml); never written back. Credentials stay linked, never copied.',
      ),
  })
  .strict()
  .superRefine((home, context) => {
    const others: Record<string, readonly string[]> = {
      link: home.link.filter((name) => name !== '*'),
      keep: home.keep,
      seed: Object.keys(home.seed),
      writeBack: home.writeBack ?? [],
    };
    for (const [index, entry] of (home.copy ?? []).entries()) {
      for (const [field, names] of Object.entries(others)) {
        const other = names.find((name) => overlaps(entry, name));
        if (other === undefined) continue;
        context.addIssue({
          code: 'custom',
          path: ['copy', index],
          message: `"${entry}" overlaps "${other}" of home.${field}: an entry is either copied or linked, kept, seeded or written back; remove it from home.copy or from home.${field}`,
        });
      }
    }
  });
