import { createRequire } from 'node:module';
import { isTuttiError } from '@tutti/core';
import { SCRIPTED_ACP_AGENT as SCRIPTED_AGENT } from '@tutti/test-kit';
import { isRunning as alive } from '@tutti/test-kit/proc-tree';
import { closeAll, scriptedHost } from '@tutti/test-kit/scripted-acp';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterEach, describe, expect, it } from 'vitest';
import { createAcpProvider } from './acp-provider.js';

afterEach(closeAll);

// Params are validated against the ACP v1 JSON Schema shipped with the SDK (ajv, 2020-12).
const schema = createRequire(import.meta.url)('@agentclientprotocol/sdk/schema/v1/schema.json');
const ajv = new Ajv2020({ strict: false, allErrors: true });
// The schema annotates integers with Rust-style formats; they add no JSON constraint.
for (const format of [
  'int8',
  'int16',
  'int32',
  'int64',
  'uint8',
  'uint16',
  'uint32',
  'uint64',
  'uint',
  'double',
  'float',
]) {
  ajv.addFormat(format, true);
}
ajv.addSchema(schema, 'acp');

/** The ajv errors of `value` as a `definition` (e.g. `NewSessionRequest`); [] when valid. */
function acpSchemaErrors(definition: string, value: unknown): string[] {
  const validate = ajv.getSchema(`acp#/$defs/${definition}`);
  if (!validate) throw new Error(`no ACP schema definition ${definition}`);
  return validate(value)
    ? []
    : (validate.errors ?? []).map((error) => `${error.instancePath} ${error.message}`);
}

const tokenIn = (params: Record<string, unknown> | undefined) => {
  const servers = params?.mcpServers as { headers: { name: string; value: string }[] }[];
  return servers[0]!.headers[0]!.value.slice('Bearer '.length);
};

describe('ACP provider with a scripted agent', () => {
  it('injects the binding as an HTTP MCP server with a headers array when the agent declares http', async () => {
    const agent = scriptedHost({ ACP_SCRIPT_HTTP: 'true' });
    const info = await agent.host.createSession(agent.request);
    expect(info).toMatchObject({
      status: 'ready',
      connector: 'bound',
      providerSessionId: 'scripted-1',
    });
    const params = agent.paramsOf('session/new')!;
    expect(params.mcpServers).toEqual([
      {
        type: 'http',
        name: 'connector',
        url: 'http://127.0.0.1:4711/mcp/connector',
        headers: [{ name: 'Authorization', value: expect.stringMatching(/^Bearer \S{20,}$/) }],
      },
    ]);
    expect(agent.tokens.verify(tokenIn(params))).toMatchObject({ agentSessionId: info.id });
    expect(params._meta).toEqual({
      tutti: { skillRoots: [`${agent.dir}/skills`], guidance: 'Use the connector MCP tools.' },
    });
    expect(params).not.toHaveProperty('additionalDirectories');
    expect(acpSchemaErrors('NewSessionRequest', params)).toEqual([]);
    expect(agent.starts()[0]!.path).toMatch(new RegExp(`^${agent.dir}/bin:`));
  });

  it('passes skill roots as additionalDirectories only to an agent that supports them', async () => {
    const agent = scriptedHost({ ACP_SCRIPT_HTTP: 'true', ACP_SCRIPT_DIRS: '1' });
    await agent.host.createSession(agent.request);
    const params = agent.paramsOf('session/new')!;
    expect(params.additionalDirectories).toEqual([`${agent.dir}/skills`]);
    expect(acpSchemaErrors('NewSessionRequest', params)).toEqual([]);
  });

  it.each([
    ['declares http false', { ACP_SCRIPT_HTTP: 'false' }],
    ['does not declare http', { ACP_SCRIPT_HTTP: 'absent' }],
    ['fails the initialize probe', { ACP_SCRIPT_HTTP: 'true', ACP_SCRIPT_INIT: 'error' }],
    ['never answers the initialize probe', { ACP_SCRIPT_HTTP: 'true', ACP_SCRIPT_INIT: 'hang' }],
  ])('starts a plain session with no connector context when the agent %s', async (_, script) => {
    const agent = scriptedHost(script, { descriptor: { initializeTimeoutMs: 300 } });
    const info = await agent.host.createSession(agent.request);
    expect(info).toMatchObject({ status: 'ready', connector: 'plain' });
    const params = agent.paramsOf('session/new')!;
    expect(params).toEqual({ cwd: agent.dir, mcpServers: [] });
    expect(acpSchemaErrors('NewSessionRequest', params)).toEqual([]);
  });

  it('starts a plain session when its provider does not declare httpMcp, though the agent declares http', async () => {
    const agent = scriptedHost({ ACP_SCRIPT_HTTP: 'true' });
    const provider = createAcpProvider({
      name: 'scripted',
      command: process.execPath,
      args: [SCRIPTED_AGENT],
    });
    agent.host.registerProvider(
      { ...provider, flags: { ...provider.flags, httpMcp: false } },
      { replace: true },
    );
    const info = await agent.host.createSession(agent.request);
    expect(info).toMatchObject({ status: 'ready', connector: 'plain' });
    const initialize = agent.received().find((message) => message.method === 'initialize');
    expect(initialize).toBeDefined();
    expect(agent.paramsOf('session/new')).toEqual({ cwd: agent.dir, mcpServers: [] });
  });

  it('starts a plain session when the connector subsystem fails', async () => {
    const agent = scriptedHost({ ACP_SCRIPT_HTTP: 'true' });
    agent.connector.failing = true;
    const info = await agent.host.createSession(agent.request);
    expect(info).toMatchObject({ status: 'ready', connector: 'plain' });
    expect(agent.paramsOf('session/new')).toEqual({ cwd: agent.dir, mcpServers: [] });
  });

  it('loads an earlier session with a fresh binding through session/load', async () => {
    const agent = scriptedHost({ ACP_SCRIPT_HTTP: 'true', ACP_SCRIPT_LOAD: '1' });
    const info = await agent.host.loadSession(agent.request, 'earlier-1');
    expect(info).toMatchObject({ providerSessionId: 'earlier-1', connector: 'bound' });
    const params = agent.paramsOf('session/load')!;
    expect(params).toMatchObject({ sessionId: 'earlier-1', cwd: agent.dir });
    expect(agent.tokens.verify(tokenIn(params))).toMatchObject({ agentSessionId: info.id });
    expect(acpSchemaErrors('LoadSessionRequest', params)).toEqual([]);
  });

  it('resumes an earlier session with a fresh binding through session/resume', async () => {
    const agent = scriptedHost({ ACP_SCRIPT_HTTP: 'true', ACP_SCRIPT_RESUME: '1' });
    const info = await agent.host.resumeSession(agent.request, 'earlier-2');
    expect(info).toMatchObject({ providerSessionId: 'earlier-2', connector: 'bound' });
    const params = agent.paramsOf('session/resume')!;
    expect(params).toMatchObject({ sessionId: 'earlier-2', cwd: agent.dir });
    expect(tokenIn(params)).not.toBe('');
    expect(acpSchemaErrors('ResumeSessionRequest', params)).toEqual([]);
  });

  it('lets sessionNew taps transform the params but not remove the binding', async () => {
    const agent = scriptedHost({ ACP_SCRIPT_HTTP: 'true' });
    agent.host.hooks.sessionNew.for('scripted').tapPromise('AddsMeta', async (params) => ({
      ...params,
      _meta: { ...(params._meta as object), audit: 'on' },
    }));
    await agent.host.createSession(agent.request);
    expect(agent.paramsOf('session/new')!._meta).toMatchObject({ audit: 'on' });

    const dropping = scriptedHost({ ACP_SCRIPT_HTTP: 'true' });
    dropping.host.hooks.sessionNew.for('scripted').tapPromise('Drops', async (params) => ({
      ...params,
      mcpServers: [],
    }));
    const error = await dropping.host
      .createSession(dropping.request)
      .catch((caught: unknown) => caught);
    expect(isTuttiError(error, 'TUTTI_ERR_PROVIDER_BINDING_DROPPED')).toBe(true);
    expect(dropping.paramsOf('session/new')).toBeUndefined();
    expect(alive(dropping.starts()[0]!.pid as number)).toBe(false);
  });

  it('refreshes by re-sending a new binding through session/resume and revokes the old token', async () => {
    const agent = scriptedHost({
      ACP_SCRIPT_HTTP: 'true',
      ACP_SCRIPT_RESUME: '1',
      ACP_SCRIPT_LOAD: '1',
    });
    const info = await agent.host.createSession(agent.request);
    const first = tokenIn(agent.paramsOf('session/new'));
    const records = await agent.host.refreshSessions(1);
    expect(records.get(info.id)).toEqual({ version: 1, strategy: 'native-reload' });
    const resume = agent.paramsOf('session/resume')!;
    expect(resume.sessionId).toBe('scripted-1');
    expect(acpSchemaErrors('ResumeSessionRequest', resume)).toEqual([]);
    expect(agent.tokens.verify(first)).toBeUndefined();
    expect(agent.tokens.verify(tokenIn(resume))).toMatchObject({ agentSessionId: info.id });
  });

  it('asks for a restart when the agent can neither resume nor load', async () => {
    const agent = scriptedHost({ ACP_SCRIPT_HTTP: 'true' });
    const info = await agent.host.createSession(agent.request);
    const first = tokenIn(agent.paramsOf('session/new'));
    const records = await agent.host.refreshSessions(1);
    expect(records.get(info.id)).toEqual({ version: 1, strategy: 'resume-or-restart' });
    expect(agent.tokens.verify(first)).toMatchObject({ agentSessionId: info.id });
  });

  it('asks for a restart when the agent fails the native reload', async () => {
    const agent = scriptedHost({
      ACP_SCRIPT_HTTP: 'true',
      ACP_SCRIPT_RESUME: '1',
      ACP_SCRIPT_FAIL_RESUME: '1',
    });
    const info = await agent.host.createSession(agent.request);
    const records = await agent.host.refreshSessions(1);
    expect(agent.paramsOf('session/resume')).toBeDefined();
    expect(records.get(info.id)).toEqual({ version: 1, strategy: 'resume-or-restart' });
  });

  it('asks for a restart without a native reload when the descriptor says the agent cannot take one live', async () => {
    const agent = scriptedHost(
      { ACP_SCRIPT_HTTP: 'true', ACP_SCRIPT_RESUME: '1' },
      { descriptor: { liveReload: false } },
    );
    const info = await agent.host.createSession(agent.request);
    const records = await agent.host.refreshSessions(1);
    expect(records.get(info.id)).toEqual({ version: 1, strategy: 'resume-or-restart' });
    expect(agent.paramsOf('session/resume')).toBeUndefined();
  });

  it('relies on list_changed for an agent that honours it when the server delivers it', async () => {
    const agent = scriptedHost(
      { ACP_SCRIPT_HTTP: 'true', ACP_SCRIPT_RESUME: '1' },
      { descriptor: { listChanged: true }, host: { listChangedDelivered: true } },
    );
    const info = await agent.host.createSession(agent.request);
    const records = await agent.host.refreshSessions(1);
    expect(records.get(info.id)?.strategy).toBe('list-changed');
    expect(agent.paramsOf('session/resume')).toBeUndefined();
  });

  it('closes the session, kills the agent process group and revokes the token', async () => {
    const agent = scriptedHost({
      ACP_SCRIPT_HTTP: 'true',
      ACP_SCRIPT_CLOSE: '1',
      ACP_SCRIPT_GRANDCHILD: '1',
    });
    const info = await agent.host.createSession(agent.request);
    const token = tokenIn(agent.paramsOf('session/new'));
    const [start] = agent.starts();
    expect(alive(start!.pid as number)).toBe(true);
    expect(alive(start!.grandchildPid as number)).toBe(true);
    await agent.host.closeSession(info.id);
    expect(agent.paramsOf('session/close')).toEqual({ sessionId: 'scripted-1' });
    expect(alive(start!.pid as number)).toBe(false);
    expect(alive(start!.grandchildPid as number)).toBe(false);
    expect(agent.tokens.verify(token)).toBeUndefined();
  });

  it('fails cleanly when the agent exits during session/new', async () => {
    const agent = scriptedHost({ ACP_SCRIPT_HTTP: 'true', ACP_SCRIPT_EXIT_ON: 'session/new' });
    const error = await agent.host.createSession(agent.request).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'TUTTI_ERR_PROVIDER_AGENT_EXITED' });
    expect((error as Error).message).toContain('"session/new"');
    expect((error as Error).message).not.toMatch(/Bearer/);
    expect(agent.host.listSessions()).toEqual([]);
  });

  it('keeps the token out of an agent error that echoes the params', async () => {
    const agent = scriptedHost({ ACP_SCRIPT_HTTP: 'true', ACP_SCRIPT_FAIL_NEW: '1' });
    const error = await agent.host.createSession(agent.request).catch((caught: unknown) => caught);
    expect(error).toMatchObject({ code: 'TUTTI_ERR_SESSION_START_FAILED' });
    expect((error as Error).message).toContain('failed "session/new"');
    const token = tokenIn(agent.paramsOf('session/new'));
    expect((error as Error).message).toContain('Bearer [redacted]');
    expect((error as Error).message).not.toContain(token);
    expect(agent.tokens.verify(token)).toBeUndefined();
  });

  it('reports a command that cannot be started', async () => {
    const agent = scriptedHost({}, { descriptor: { command: '/nonexistent/acp-agent' } });
    await expect(agent.host.createSession(agent.request)).rejects.toMatchObject({
      code: 'TUTTI_ERR_PROVIDER_SPAWN_FAILED',
    });
  });

  it('needs a command for the generic ACP descriptor', async () => {
    const agent = scriptedHost({}, { descriptor: { command: undefined } });
    const { launch, ...request } = agent.request;
    await expect(agent.host.createSession({ ...request, launch: {} })).rejects.toMatchObject({
      code: 'TUTTI_ERR_PROVIDER_NO_COMMAND',
    });
    expect(launch.env.ACP_SCRIPT_RECORD).toBeDefined();
  });
});
