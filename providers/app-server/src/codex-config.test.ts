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
  it('asks for every approval, and approves connector tools in allow-connector mode only', () => {
    const { config } = projectBindings(parseConfig('approval_policy = "never"\n'), [binding]);
    const ask = withDaemonApprovals(config, 'ask');
    expect(ask.approval_policy).toBe('on-request');
    expect(ask.mcp_servers).toEqual(config.mcp_servers);
    const allow = withDaemonApprovals(config, 'allow-connector');
    expect(allow.approval_policy).toBe('on-request');
    expect((allow.mcp_servers as Record<string, unknown>).connector).toEqual({
      url: binding.url,
      http_headers: { Authorization: 'Bearer t0ken' },
      default_tools_approval_mode: 'approve',
    });
    expect(config.approval_policy).toBe('never');
  });
});
