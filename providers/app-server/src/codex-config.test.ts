import type { MCPServerBinding } from '@tutti/core';
import { describe, expect, it } from 'vitest';
import {
  parseConfig,
  projectBindings,
  stringifyConfig,
  withDaemonApprovals,
} from './codex-config.js';

const binding: MCPServerBinding = {
  name: 'connector',
  type: 'http',
  url: 'http://127.0.0.1:4711/mcp/connector',
  headers: { Authorization: 'Bearer t0ken' },
};

const USER = `model = "o3"
[mcp_servers.github]
command = "gh-mcp"
args = ["--stdio"]
[mcp_servers.connector]
url = "http://example.test/theirs"
[profiles.fast]
model = "mini"
`;

describe('projectBindings', () => {
  it('adds [mcp_servers.connector] with url and http_headers and keeps everything else', () => {
    const user = parseConfig(USER);
    const { config, replaced } = projectBindings(user, [binding]);
    const roundTrip = parseConfig(stringifyConfig(config));
    expect(roundTrip).toEqual({
      model: 'o3',
      mcp_servers: {
        github: { command: 'gh-mcp', args: ['--stdio'] },
        connector: { url: binding.url, http_headers: { Authorization: 'Bearer t0ken' } },
      },
      profiles: { fast: { model: 'mini' } },
    });
    expect(replaced).toEqual(['connector']);
  });

  it('does not change the parsed user config it was given', () => {
    const user = parseConfig(USER);
    projectBindings(user, [binding]);
    expect(user).toEqual(parseConfig(USER));
  });

  it('writes no mcp_servers table for a plain session', () => {
    const { config } = projectBindings(parseConfig('model = "o3"\n'), []);
    expect(config).toEqual({ model: 'o3' });
  });
});

describe('withDaemonApprovals', () => {
  const USER_SERVERS =
    'approval_policy = "never"\n[mcp_servers.mine]\nurl = "http://127.0.0.1:9/mcp"\ndefault_tools_approval_mode = "approve"\n';

  it('makes every MCP server ask, the connector too, under ask', () => {
    const { config } = projectBindings(parseConfig(USER_SERVERS), [binding]);
    const ask = withDaemonApprovals(config, 'ask', '/work/repo');
    const servers = ask.mcp_servers as Record<string, Record<string, unknown>>;
    expect(servers.connector!.default_tools_approval_mode).toBe('prompt');
    expect(servers.mine!.default_tools_approval_mode).toBe('prompt');
    // The thread's approval policy decides (Codex refuses "untrusted" in config.toml).
    expect(ask.approval_policy).toBe('never');
  });

  it('approves connector tools in allow-connector mode only; other servers still ask', () => {
    const { config } = projectBindings(parseConfig(USER_SERVERS), [binding]);
    const allow = withDaemonApprovals(config, 'allow-connector', '/work/repo');
    const servers = allow.mcp_servers as Record<string, Record<string, unknown>>;
    expect(servers.connector).toEqual({
      url: binding.url,
      http_headers: { Authorization: 'Bearer t0ken' },
      default_tools_approval_mode: 'approve',
    });
    expect(servers.mine!.default_tools_approval_mode).toBe('prompt');
  });

  it('marks the workspace untrusted, so its own .codex rules and settings have no say', () => {
    const { config } = projectBindings(
      parseConfig('[projects."/work/repo"]\ntrust_level = "trusted"\n'),
      [binding],
    );
    const ask = withDaemonApprovals(config, 'ask', '/work/repo');
    expect((ask.projects as Record<string, unknown>)['/work/repo']).toEqual({
      trust_level: 'untrusted',
    });
  });

  it("leaves the user's config as it is under agent", () => {
    const { config } = projectBindings(parseConfig(USER_SERVERS), [binding]);
    expect(withDaemonApprovals(config, 'agent', '/work/repo')).toBe(config);
  });
});
