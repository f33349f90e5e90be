/**
 * `toolsListed` in `GET /v1/sessions`, with an in-process daemon and no agent: a
 * `tools/list` answered on the connector server is recorded on the session whose token
 * sent it, at the registry version it saw, and on no other session.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { type Daemon, startDaemon } from '@tutti/core';
import { writeRelease, cleanUp, tempDir, mcpRequest } from '@tutti/test-kit';

let daemon: Daemon | undefined;

afterEach(async () => {
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
  expect(response.status).toBe(200);
  return response.json();
}

/** A prepare-only session's bearer token. */
async function tokenOf(agentSessionId: string, cwd: string): Promise<string> {
  const { runtime } = await control('POST', '/v1/sessions', {
    workspaceId: 'ws',
    agentSessionId,
    cwd,
  });
  return runtime.mcpServers[0].headers.Authorization.slice('Bearer '.length);
}

async function listTools(token: string): Promise<number> {
  const binding = { url: daemon!.mcpUrl, headers: { authorization: `Bearer ${token}` } };
  return (await mcpRequest(binding, 'tools/list')).status;
}

async function listed(id: string) {
  const { sessions } = await control('GET', '/v1/sessions');
  return sessions.find((session: { id: string }) => session.id === id)?.toolsListed;
}

describe('toolsListed of agent sessions', () => {
  it('records the registry version and tool count a session token was last listed at', async () => {
    const home = await tempDir('tutti-listed-home-');
    daemon = await startDaemon({ home });
    await control('POST', '/v1/connectors/install', {
      path: await writeRelease({ key: 'first', serverArgs: [] }),
    });
    const first = (await control('GET', '/debug/registry')).registry;
    const lister = await tokenOf('lister', home);
    await tokenOf('idle', home);
    expect(await listed('lister')).toBeUndefined();

    const before = Date.now();
    expect(await listTools(lister)).toBe(200);
    expect(await listTools('not-a-session-token')).toBe(401);
    expect(await listed('lister')).toEqual({
      version: first.version,
      toolCount: first.toolCount,
      at: expect.any(Number),
    });
    expect((await listed('lister')).at).toBeGreaterThanOrEqual(before);
    expect(await listed('idle')).toBeUndefined();

    await control('POST', '/v1/connectors/install', {
      path: await writeRelease({ key: 'second', serverArgs: [] }),
    });
    const second = (await control('GET', '/debug/registry')).registry;
    expect(second.version).toBeGreaterThan(first.version);
    expect(await listed('lister')).toMatchObject({
      version: first.version,
      toolCount: first.toolCount,
    });
    expect(await listTools(lister)).toBe(200);
    expect(await listed('lister')).toMatchObject({
      version: second.version,
      toolCount: second.toolCount,
    });
  });
});
