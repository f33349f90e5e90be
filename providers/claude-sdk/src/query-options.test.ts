import type { MCPServerBinding, PreparedRuntime } from '@tutti/core';
import { describe, expect, it } from 'vitest';
import { buildQueryOptions, withDaemonPermissions } from './query-options.js';

const binding: MCPServerBinding = {
  name: 'connector',
  type: 'http',
  url: 'http://127.0.0.1:4711/mcp/connector',
  headers: { Authorization: 'Bearer t0ken' },
};

const prepared: PreparedRuntime = {
  cwd: '/work/project',
  env: { PATH: '/shims:/usr/bin', HOME: '/home/u' },
  mcpServers: [binding],
  skillRoots: [],
};

describe('buildQueryOptions', () => {
  it('adds connector next to the caller servers and sends servers over initialize', () => {
    const options = buildQueryOptions(prepared, {
      userOptions: { mcpServers: { mine: { type: 'stdio', command: 'mine-mcp' } } },
    });
    expect(options.mcpServers).toEqual({
      mine: { type: 'stdio', command: 'mine-mcp' },
      connector: { type: 'http', url: binding.url, headers: { Authorization: 'Bearer t0ken' } },
    });
    expect(options.mcpServersDelivery).toBe('initialize');
    expect(options.cwd).toBe('/work/project');
  });

  it('replaces a caller server named connector and says so in a log', () => {
    const warnings: Record<string, unknown>[] = [];
    const options = buildQueryOptions(prepared, {
      userOptions: { mcpServers: { connector: { type: 'http', url: 'http://example.test/x' } } },
      logger: { warn: (fields) => warnings.push(fields) },
    });
    expect(options.mcpServers?.connector).toMatchObject({ url: binding.url });
    expect(warnings).toEqual([{ server: 'connector' }]);
    expect(JSON.stringify(warnings)).not.toContain('t0ken');
  });

  it('lets the prepared env win over the caller env', () => {
    const options = buildQueryOptions(prepared, {
      userOptions: { env: { PATH: '/other', EXTRA: '1' } },
    });
    expect(options.env).toEqual({ PATH: '/shims:/usr/bin', HOME: '/home/u', EXTRA: '1' });
  });

  it('resumes by session id, or names a new session', () => {
    expect(buildQueryOptions(prepared, { resume: 'abc', sessionId: 'new' })).toMatchObject({
      resume: 'abc',
    });
    expect(
      buildQueryOptions(prepared, { resume: 'abc', sessionId: 'new' }).sessionId,
    ).toBeUndefined();
    expect(buildQueryOptions(prepared, { sessionId: 'new' }).sessionId).toBe('new');
  });

  it('adds the skill plugin after the caller plugins and appends guidance', () => {
    const options = buildQueryOptions(
      { ...prepared, guidance: 'Use connector tools natively.' },
      {
        userOptions: { plugins: [{ type: 'local', path: '/p' }] },
        skillPluginDir: '/skills-plugin',
      },
    );
    expect(options.plugins).toEqual([
      { type: 'local', path: '/p' },
      { type: 'local', path: '/skills-plugin', skipMcpDiscovery: true },
    ]);
    expect(options.systemPrompt).toEqual({
      type: 'preset',
      preset: 'claude_code',
      append: 'Use connector tools natively.',
    });
  });

  it('gives a plain session no connector when nothing is prepared', () => {
    const options = buildQueryOptions({ ...prepared, mcpServers: [] });
    expect(options.mcpServers).toEqual({});
  });
});

describe('withDaemonPermissions', () => {
  it('sends every approval to canUseTool under ask and allow-connector, with only the daemon rules in force', () => {
    const options = buildQueryOptions(prepared, {
      userOptions: {
        allowedTools: ['Read', 'Bash'],
        permissionMode: 'bypassPermissions',
        managedSettings: { permissions: { deny: ['WebFetch'] } },
      },
    });
    for (const permissions of ['ask', 'allow-connector'] as const) {
      const daemon = withDaemonPermissions({ drivenBy: 'daemon', permissions }, options);
      expect(daemon.allowedTools).toBeUndefined();
      expect(daemon.permissionMode).toBe('default');
      expect(daemon.managedSettings).toEqual({
        allowManagedPermissionRulesOnly: true,
        permissions: { deny: ['WebFetch'], disableBypassPermissionsMode: 'disable' },
      });
    }
  });

  it("leaves the caller's options as they are under agent and for a host-driven session", () => {
    const options = buildQueryOptions(prepared, { userOptions: { allowedTools: ['Read'] } });
    expect(withDaemonPermissions({ drivenBy: 'daemon', permissions: 'agent' }, options)).toBe(
      options,
    );
    expect(withDaemonPermissions({ drivenBy: 'host', permissions: 'ask' }, options)).toBe(options);
  });
});
