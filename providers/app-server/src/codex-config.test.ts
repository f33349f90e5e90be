import type { MCPServerBinding } from '@tutti/core';
import { describe, expect, it } from 'vitest';
import { parseConfig, projectBindings, stringifyConfig } from './codex-config.js';

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
