/**
 * The upstreams' instructions reach the agents, with an in-process daemon and two real
 * stdio connectors: what each connector's server sends in its `initialize` result is in
 * the `connector` server's `initialize` and `server/discover` results, one block per
 * connector opened by its key, in key order; an upgrade whose server sends other
 * instructions is seen by the next `initialize`, and an uninstalled connector's are gone.
 */
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it } from 'vitest';
import { type Daemon, startDaemon } from '@tutti/core';
import { cleanUp, mcpRequest, tempDir, writeRelease } from '@tutti/test-kit';

let daemon: Daemon | undefined;
const clients: Client[] = [];

afterEach(async () => {
  for (const client of clients.splice(0)) await client.close().catch(() => undefined);
  await daemon?.close();
  daemon = undefined;
  await cleanUp();
});

// biome-ignore lint/suspicious/noExplicitAny: answers are JSON checked by each test's assertions
async function control(method: string, path: string, body?: unknown): Promise<any> {
  const response = await fetch(`${daemon!.info.controlUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${daemon!.info.controlToken}`,
      ...(body !== undefined && { 'content-type': 'application/json' }),
    },
    ...(body !== undefined && { body: JSON.stringify(body) }),
  });
  const answer = await response.json();
  expect(response.status, JSON.stringify(answer)).toBe(200);
  return answer;
}

/** Installs version `version` of connector `key`, whose server sends `instructions`. */
async function install(key: string, version: string, instructions: string): Promise<void> {
  const path = await writeRelease({ key, version, serverArgs: ['--instructions', instructions] });
  const { runtime } = await control('POST', '/v1/connectors/install', { path });
  expect(runtime.state).toBe('ready');
}

/** A prepare-only session's bearer token. */
async function sessionToken(cwd: string): Promise<string> {
  const { runtime } = await control('POST', '/v1/sessions', {
    workspaceId: 'ws',
    agentSessionId: 'reader',
    cwd,
  });
  return runtime.mcpServers[0].headers.Authorization.slice('Bearer '.length);
}

/** The instructions a real SDK v2 client gets, over 2025 (`initialize`) or 2026 (`server/discover`). */
async function clientInstructions(token: string, era: 'legacy' | 'modern') {
  const client = new Client(
    { name: 'instructions-reader', version: '1.0.0' },
    era === 'modern' ? { versionNegotiation: { mode: { pin: '2026-07-28' } } } : {},
  );
  clients.push(client);
  await client.connect(
    new StreamableHTTPClientTransport(new URL(daemon!.mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    }),
  );
  expect(client.getNegotiatedProtocolVersion()).toBe(
    era === 'modern' ? '2026-07-28' : '2025-06-18',
  );
  return client.getInstructions();
}

describe('connector instructions', () => {
  it("serves both connectors' instructions by key, and the next initialize sees an upgrade's", async () => {
    const home = await tempDir('tutti-instructions-home-');
    daemon = await startDaemon({ home });
    await install('tasks', '1.0.0', 'One task per call.\nClose a task when done.');
    await install('docs', '1.0.0', 'Search before you read.');
    const token = await sessionToken(home);
    const binding = { url: daemon.mcpUrl, headers: { authorization: `Bearer ${token}` } };
    const both =
      'docs: Search before you read.\ntasks: One task per call.\n  Close a task when done.';

    const initialize = await mcpRequest(binding, 'initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'raw', version: '1' },
    });
    expect(initialize.body.result).toMatchObject({
      protocolVersion: '2025-06-18',
      serverInfo: { name: 'connector' },
      instructions: both,
    });
    expect(await clientInstructions(token, 'legacy')).toBe(both);
    expect(await clientInstructions(token, 'modern')).toBe(both);

    await install('docs', '2.0.0', 'Read the index first.');
    const upgraded =
      'docs: Read the index first.\ntasks: One task per call.\n  Close a task when done.';
    expect(await clientInstructions(token, 'legacy')).toBe(upgraded);
    expect(await clientInstructions(token, 'modern')).toBe(upgraded);

    await control('DELETE', '/v1/connectors/tasks');
    expect(await clientInstructions(token, 'legacy')).toBe('docs: Read the index first.');
    await control('DELETE', '/v1/connectors/docs');
    const none = await mcpRequest(binding, 'initialize', { protocolVersion: '2025-06-18' });
    expect(none.body.result).not.toHaveProperty('instructions');
  });
});
