/**
 * Test harness around the kit's scripted ACP agent (`SCRIPTED_ACP_AGENT`): a session host
 * with the ACP engine (`createAcpProvider`, exported by `@tutti/provider-acp`) driving the
 * scripted agent, the real token service, and readers for what the agent received. Every
 * host made here is closed by `closeAll()`. For the ACP provider's tests.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentSessionHost, type AgentSessionHostOptions } from '@tutti/core';
import { createTokenService } from '@tutti/core/internal';
import { type AcpAgentDescriptor, createAcpProvider } from '@tutti/provider-acp';
import { createFakeConnector } from './core/fake-connector.js';
import { SCRIPTED_ACP_AGENT } from './paths.js';

const hosts: AgentSessionHost[] = [];
const dirs: string[] = [];

/** One JSON-RPC message the agent received. */
export interface Received {
  method?: string;
  id?: number;
  params?: Record<string, unknown>;
  /** The client's answer to a request of the agent. */
  result?: unknown;
}

/** A host whose `scripted` provider starts the scripted agent with `script` env. */
export function scriptedHost(
  script: Record<string, string>,
  options: {
    descriptor?: Partial<AcpAgentDescriptor>;
    host?: Partial<AgentSessionHostOptions>;
  } = {},
) {
  const dir = mkdtempSync(join(tmpdir(), 'tutti-acp-'));
  dirs.push(dir);
  const record = join(dir, 'received.jsonl');
  const connector = createFakeConnector({
    binDir: join(dir, 'bin'),
    skillRoots: [join(dir, 'skills')],
  });
  const tokens = createTokenService();
  const host = new AgentSessionHost({
    connector,
    tokens,
    guidance: () => 'Use the connector MCP tools.',
    sessionsDir: dir,
    ...options.host,
  });
  hosts.push(host);
  host.registerProvider(
    createAcpProvider({
      name: 'scripted',
      command: process.execPath,
      args: [SCRIPTED_ACP_AGENT],
      ...options.descriptor,
    }),
  );
  const request = {
    provider: 'scripted',
    workspaceId: 'ws-1',
    cwd: dir,
    env: { PATH: process.env.PATH ?? '' },
    launch: { env: { ...script, ACP_SCRIPT_RECORD: record } },
    // A scripted agent follows its script, not settings the daemon could check: its own rules.
    permissions: 'agent' as const,
  };
  const lines = () =>
    existsSync(record)
      ? readFileSync(record, 'utf8')
          .trim()
          .split('\n')
          .map(
            (line) =>
              JSON.parse(line) as { kind: string; message?: Received; [key: string]: unknown },
          )
      : [];
  return {
    host,
    tokens,
    connector,
    dir,
    request,
    /** Requests the agent received, in order. */
    received: (): Received[] =>
      lines()
        .filter((line) => line.kind === 'message')
        .map((line) => line.message!),
    /** The params of the first received `method`. */
    paramsOf: (method: string) =>
      lines().find((line) => line.message?.method === method)?.message?.params,
    /** The agent's start records (pid, grandchild pid, PATH). */
    starts: () => lines().filter((line) => line.kind === 'start'),
  };
}

/** Closes every host (and so every agent) and removes the temp dirs. */
export async function closeAll(): Promise<void> {
  await Promise.all(hosts.splice(0).map((host) => host.close()));
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}
