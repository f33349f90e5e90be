/**
 * Reads agent descriptor files: JSON, checked against the descriptor schema, the command
 * resolved (a package's bin, or a name on PATH) and the descriptor turned into what the
 * generic ACP engine runs. Each file that cannot be used is refused on its own, with the
 * field and the fix; the others load.
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

/** One file's outcome. */
export type DescriptorLoad =
  | { readonly file: string; readonly descriptor: AcpAgentDescriptor; readonly title: string }
  | { readonly file: string; readonly error: TuttiError };

/** The command of `descriptor`, as a path, or why it cannot be found. */
function resolveCommand(
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
    ...(file.home ? { home: file.home } : {}),
    skills: file.skills as AcpAgentDescriptor['skills'] & object,
    guidance: file.guidance as AcpAgentDescriptor['guidance'] & object,
    settings: file.settings,
    ...(file.sessionMode ? { sessionMode: file.sessionMode } : {}),
    ...(file.permissions ? { permissions: file.permissions } : {}),
  };
}

/** Reads and checks one descriptor file. */
export async function loadDescriptor(
  file: string,
  path = process.env.PATH,
): Promise<DescriptorLoad> {
  const refuse = (field: string, problem: string): DescriptorLoad => ({
    file,
    error: new TuttiError('TUTTI_ERR_PLUGIN_BAD_DESCRIPTOR', { file, field, problem }),
  });
  let json: unknown;
  try {
    json = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    return refuse('(file)', `it is not JSON (${(error as Error).message}): fix the file`);
  }
  const parsed = agentDescriptorSchema.safeParse(json);
  if (!parsed.success) {
    const { field, problem } = descriptorProblem(parsed.error);
    return refuse(field, problem);
  }
  if (parsed.data.command === undefined) {
    return refuse(
      'command',
      'missing: add the command, or install the registry agent this descriptor extends (registryIds)',
    );
  }
  const resolved = await resolveCommand(parsed.data.command, path);
  if ('problem' in resolved) return refuse('command', resolved.problem);
  return {
    file,
    descriptor: engineDescriptor(parsed.data, resolved.command),
    title: parsed.data.name,
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
