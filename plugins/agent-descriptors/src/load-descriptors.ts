/**
 * Reads agent descriptor files: JSON, checked against the descriptor schema, the command
 * resolved (a package's bin, or a name on PATH) and the descriptor turned into what the
 * generic ACP engine runs. Each file that cannot be used is refused on its own, with the
 * field and the fix; the others load. A descriptor without a command extends an installed
 * agent (its id or `registryIds`): it is kept, waiting for that agent.
 */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AcpAgentDescriptor } from '@tutti/provider-acp';
import { resolveAgentCommand, TuttiError } from '@tutti/core';
import {
  type AgentDescriptorFile,
  agentDescriptorSchema,
  descriptorProblem,
} from './descriptor-schema.js';

/**
 * One file's outcome: runnable on its own (`descriptor`), waiting for an installed agent it
 * extends (no command), or refused (`error`). `parsed` is there whenever the file passed the
 * schema, also when only its command was not found: it may still extend an installed agent.
 */
export type DescriptorLoad =
  | {
      readonly file: string;
      readonly parsed: AgentDescriptorFile;
      readonly descriptor: AcpAgentDescriptor;
      readonly title: string;
    }
  | { readonly file: string; readonly parsed: AgentDescriptorFile; readonly waits: true }
  | { readonly file: string; readonly parsed?: AgentDescriptorFile; readonly error: TuttiError };

/** The parsed descriptor of `load`, when the file passed the schema. */
export function parsedOf(load: DescriptorLoad): AgentDescriptorFile | undefined {
  return 'parsed' in load ? load.parsed : undefined;
}

/** True when `file` extends the installed agent `id` (by its own id or its `registryIds`). */
export function extendsAgent(file: AgentDescriptorFile, id: string): boolean {
  return file.id === id || file.registryIds.includes(id);
}

/** The command of `descriptor`, as a path, or why it cannot be found. */
export function resolveCommand(
  command: NonNullable<AgentDescriptorFile['command']>,
  path: string | undefined,
): Promise<{ command: string } | { problem: string }> {
  return resolveAgentCommand(command, import.meta.url, path);
}

/** What the ACP engine runs for one parsed descriptor. */
export function engineDescriptor(file: AgentDescriptorFile, command: string): AcpAgentDescriptor {
  return {
    name: file.id,
    command,
    args: file.args,
    env: file.env,
    listChanged: file.listChanged,
    ...(file.liveReload === false ? { liveReload: false } : {}),
    ...(file.timeouts.initializeMs ? { initializeTimeoutMs: file.timeouts.initializeMs } : {}),
    ...(file.timeouts.requestMs ? { requestTimeoutMs: file.timeouts.requestMs } : {}),
    ...(file.home ? { home: { ...file.home, seed: textSeeds(file.home.seed) } } : {}),
    skills: file.skills as AcpAgentDescriptor['skills'] & object,
    guidance: file.guidance as AcpAgentDescriptor['guidance'] & object,
    settings: file.settings,
    ...(file.sessionMode ? { sessionMode: file.sessionMode } : {}),
    ...(file.permissions ? { permissions: file.permissions } : {}),
  };
}

/** The home's seeds as text: a `{file}` seed is an extension's, read before (see extension-seeds.ts). */
function textSeeds(
  seeds: NonNullable<AgentDescriptorFile['home']>['seed'],
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(seeds).map(([name, seed]) => {
      if (typeof seed !== 'string') throw new Error(`home.seed.${name} was not read`);
      return [name, seed];
    }),
  );
}

/** The first `home.seed` that names a package file, if any (only an extension's may). */
export function fileSeedOf(parsed: AgentDescriptorFile): string | undefined {
  return Object.entries(parsed.home?.seed ?? {}).find(([, seed]) => typeof seed !== 'string')?.[0];
}

/** TUTTI_ERR_PLUGIN_BAD_DESCRIPTOR of `file`: its `field` and the fix. */
export function badDescriptor(file: string, field: string, problem: string): TuttiError {
  return new TuttiError('TUTTI_ERR_PLUGIN_BAD_DESCRIPTOR', { file, field, problem });
}

/** Reads one descriptor file and checks it against the schema (its command is not looked up). */
export async function readDescriptorFile(
  file: string,
): Promise<{ readonly parsed: AgentDescriptorFile } | { readonly error: TuttiError }> {
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    const problem = `it is not JSON (${(error as Error).message}): fix the file`;
    return { error: badDescriptor(file, '(file)', problem) };
  }
  const parsed = agentDescriptorSchema.safeParse(json);
  if (parsed.success) return { parsed: parsed.data };
  const { field, problem } = descriptorProblem(parsed.error);
  return { error: badDescriptor(file, field, problem) };
}

/** Reads and checks one descriptor file. */
export async function loadDescriptor(
  file: string,
  path = process.env.PATH,
): Promise<DescriptorLoad> {
  const read = await readDescriptorFile(file);
  if ('error' in read) return { file, error: read.error };
  const { parsed } = read;
  const fileSeed = fileSeedOf(parsed);
  if (fileSeed !== undefined) {
    const problem =
      "only a signed extension's descriptor seeds a file from its package: write the text here instead";
    return { file, error: badDescriptor(file, `home.seed.${fileSeed}`, problem) };
  }
  if (parsed.command === undefined) return { file, parsed, waits: true };
  const resolved = await resolveCommand(parsed.command, path);
  if ('problem' in resolved) {
    return { file, parsed, error: badDescriptor(file, 'command', resolved.problem) };
  }
  return {
    file,
    parsed,
    descriptor: engineDescriptor(parsed, resolved.command),
    title: parsed.name,
  };
}

/** Every `*.json` of `dir` (none when it does not exist), in name order. */
export async function loadDescriptors(
  dir: string,
  path = process.env.PATH,
): Promise<DescriptorLoad[]> {
  const names = await readdir(dir).catch(() => [] as string[]);
  const loads: DescriptorLoad[] = [];
  for (const name of names.filter((entry) => entry.endsWith('.json')).sort()) {
    loads.push(await loadDescriptor(join(dir, name), path));
  }
  return loads;
}
