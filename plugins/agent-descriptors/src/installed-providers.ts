/**
 * What the ACP engine runs for an agent installed in `<home>/agents/<id>/` (from a registry
 * entry or a signed extension): the command its entry installed, with the descriptor that
 * extends it. That descriptor is, first found: the extension's own (its `id` must be the
 * agent's), a user descriptor (`<home>/agents/*.json`) or a shipped one whose `id` or
 * `registryIds` name the agent, else generic ACP defaults (no home, no skills, no guidance,
 * no permissions: sessions take `"permissions": "agent"` only). The provider is always named
 * by the agent's id.
 */
import { join } from 'node:path';
import type { InstalledAgent } from '@tutti/core';
import type { AcpAgentDescriptor } from '@tutti/provider-acp';
import { type AgentDescriptorFile, agentDescriptorSchema } from './descriptor-schema.js';
import {
  badDescriptor,
  type DescriptorLoad,
  engineDescriptor,
  extendsAgent,
  parsedOf,
  readDescriptorFile,
  resolveCommand,
} from './load-descriptors.js';
import { withExtensionSeeds } from './extension-seeds.js';

/** The descriptors an installed agent may be extended by, in the order they are searched. */
export interface ExtendingDescriptors {
  readonly user: readonly DescriptorLoad[];
  readonly shipped: readonly DescriptorLoad[];
}

/** A descriptor and the file it came from (for the refusals). */
interface Chosen {
  readonly file: string;
  readonly parsed: AgentDescriptorFile;
}

/** The defaults of a descriptor that says nothing beyond its name. */
const GENERIC = agentDescriptorSchema.parse({ id: 'installed-agent', name: 'Installed agent' });

/** The first of `loads` that extends agent `id`: by its own id first, then by `registryIds`. */
export function extendingDescriptor(
  loads: readonly DescriptorLoad[],
  id: string,
): Chosen | undefined {
  const usable = loads.flatMap((load) => {
    const parsed = parsedOf(load);
    return parsed && extendsAgent(parsed, id) ? [{ file: load.file, parsed }] : [];
  });
  return usable.find((chosen) => chosen.parsed.id === id) ?? usable[0];
}

/**
 * The extension's descriptor, checked: it must parse, name the agent's id and no command of
 * its own (an extension is data: the program is the one its registry entry installed); its
 * `{file}` seeds are read from the package.
 */
async function extensionDescriptor(agent: InstalledAgent): Promise<Chosen | undefined> {
  const extension = agent.extension;
  if (extension === undefined) return undefined;
  const file = extension.descriptor;
  const read = await readDescriptorFile(file);
  if ('error' in read) throw read.error;
  if (read.parsed.id !== agent.id) {
    throw badDescriptor(
      file,
      'id',
      `"${read.parsed.id}" is not the agent it extends ("${agent.id}"): an extension's descriptor has the id of its agent`,
    );
  }
  if (read.parsed.command !== undefined || !agent.run) {
    throw badDescriptor(
      file,
      'command',
      `an extension names no program of its own: agent "${agent.id}" runs what its registry entry installed. Remove "command", and put the entry in tutti-extension.json ("entry") or install the agent from its registry entry first`,
    );
  }
  return { file, parsed: await withExtensionSeeds(read.parsed, extension, file) };
}

/** The descriptor that extends `agent`, or undefined for generic ACP defaults. */
export async function chooseDescriptor(
  agent: InstalledAgent,
  found: ExtendingDescriptors,
): Promise<Chosen | undefined> {
  return (
    (await extensionDescriptor(agent)) ??
    extendingDescriptor(found.user, agent.id) ??
    extendingDescriptor(found.shipped, agent.id)
  );
}

/**
 * What the ACP engine runs for `agent`. The entry's command and args (the registry knows
 * the agent's ACP flag), the descriptor's env over the entry's; a descriptor without a
 * command adds its args after the entry's. An agent without an entry command runs the
 * descriptor's own. Throws TUTTI_ERR_PLUGIN_BAD_DESCRIPTOR naming the file and the field
 * when the agent cannot be run.
 */
export async function installedAgentDescriptor(
  agent: InstalledAgent,
  found: ExtendingDescriptors,
  path = process.env.PATH,
): Promise<AcpAgentDescriptor> {
  const chosen = await chooseDescriptor(agent, found);
  const parsed = chosen?.parsed ?? { ...GENERIC, id: agent.id, name: agent.name.slice(0, 80) };
  const file = chosen?.file ?? join(agent.dir, 'installed.json');
  const named = (descriptor: AcpAgentDescriptor): AcpAgentDescriptor => ({
    ...descriptor,
    name: agent.id,
  });
  if (agent.run) {
    const { command, args, env } = agent.run;
    return named({
      ...engineDescriptor(parsed, command),
      args: [...args, ...(parsed.command === undefined ? parsed.args : [])],
      env: { ...env, ...parsed.env },
    });
  }
  if (parsed.command === undefined) {
    throw badDescriptor(
      file,
      'command',
      `missing: agent "${agent.id}" was installed without a command of its own, so its descriptor must name one: add "command", or install the agent from its registry entry`,
    );
  }
  const resolved = await resolveCommand(parsed.command, path);
  if ('problem' in resolved) throw badDescriptor(file, 'command', resolved.problem);
  return named(engineDescriptor(parsed, resolved.command));
}
