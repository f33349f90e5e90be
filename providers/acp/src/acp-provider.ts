/**
 * The generic ACP engine as a provider. It projects the ACP session params (the binding,
 * and what the descriptor delivers through them) and gives each session a driver: a
 * handshake (`initialize`) on the spawned agent decides the connector context (only an
 * agent that declares `agentCapabilities.mcpCapabilities.http === true` gets it; one that
 * does not answer gets a plain session that still starts). What differs between agents is
 * data in their descriptor: the session home, how skills and guidance reach the agent, the
 * session mode set after each open, whether it takes a new binding live.
 */
import type { AgentProvider } from '@tutti/core';
import { AcpDriver } from './acp-driver.js';
import type { AcpEngineLogger } from './acp-session.js';
import { withDeliveries } from './acp-deliveries.js';
import type { AcpAgentDescriptor } from './descriptors.js';
import { type AcpSessionParams, bindingsInParams, sessionParams } from './project-params.js';

declare module '@tutti/core' {
  interface ProviderParamsMap {
    acp: AcpSessionParams;
    opencode: AcpSessionParams;
  }
}

/** A provider that drives the ACP agent `descriptor` describes. */
export function createAcpProvider(
  descriptor: AcpAgentDescriptor,
  options: { readonly logger?: AcpEngineLogger | undefined } = {},
): AgentProvider<string, AcpSessionParams> {
  const { permissions } = descriptor;
  const provider: AgentProvider<string, AcpSessionParams> = {
    name: descriptor.name,
    flags: Object.freeze({ httpMcp: true, listChanged: descriptor.listChanged ?? false }),
    ...(permissions && {
      permissions: Object.freeze({
        modes: (['ask', 'allow-connector'] as const).filter(
          (mode) => permissions.modes[mode] !== undefined,
        ),
        toolNames: [...permissions.toolNames],
        clearEnv: [...(permissions.clearEnv ?? [])],
      }),
    }),
    launch: Object.freeze({
      ...(descriptor.command ? { command: descriptor.command } : {}),
      args: descriptor.args ?? [],
      env: descriptor.env ?? {},
    }),
    // Whether this agent can is its own answer to `initialize`; the driver's open checks it.
    reopens: ['load', 'resume'],
    project: (runtime, session) =>
      withDeliveries(sessionParams(runtime, session), descriptor, runtime, session),
    bindingsIn: bindingsInParams,
    probeOf(declared) {
      const mcp = declared.mcpCapabilities as Record<string, unknown> | undefined;
      return { httpMcp: mcp?.http === true };
    },
    driver: (setup) => new AcpDriver(descriptor, setup, options.logger),
  };
  return Object.freeze(provider);
}
