import { describe, expect, it } from 'vitest';
import { renderStatus } from './status.js';

describe('the human form of tuttid status', () => {
  it('shows each connector with its status, the reason it does not work and its stderr tail', () => {
    const text = renderStatus({
      home: '/home/u/.tutti',
      pid: 4242,
      restoring: false,
      connectors: [
        {
          key: 'broken',
          version: '1.2.0',
          runtime: {
            state: 'failed',
            mcp: 'failed',
            toolCount: 0,
            failures: 3,
            lastError: 'Upstream MCP server "node" failed during startup: exit code 2.',
            advice: 'It is not working.',
            stderr: ['401 invalid API key', 'bye \u001b[31mred'],
            pending: { version: '1.3.0', reason: 'it has not started yet' },
          },
        },
        {
          key: 'keyed',
          version: '1.0.0',
          runtime: { state: 'needs-auth', mcp: 'needs-auth', advice: 'It needs a credential.' },
        },
        { key: 'notes', version: '1.0.0', runtime: { state: 'ready', mcp: 'ready', toolCount: 3 } },
      ],
      sessions: [
        {
          id: 's-1',
          provider: 'codex',
          status: 'exited',
          connector: 'bound',
          permissions: 'ask',
          reason: 'the agent exited',
          exit: { description: 'exit code 1', stderr: ['panic: no model'] },
        },
      ],
    });
    expect(text).toBe(
      [
        'tuttid is running (pid 4242) on /home/u/.tutti',
        '',
        'connectors (3)',
        '  broken  failed      1.2.0  0 MCP tools (failed), 3 failures in a row',
        '    reason   Upstream MCP server "node" failed during startup: exit code 2.',
        '    pending  1.3.0: it has not started yet',
        '    stderr   401 invalid API key',
        '             bye ?[31mred',
        '  keyed   needs-auth  1.0.0  0 MCP tools (needs-auth)',
        '    reason   It needs a credential.',
        '  notes   ready       1.0.0  3 MCP tools (ready)',
        '',
        'agent sessions (1)',
        '  s-1  codex  exited  connector bound  ask',
        '    reason   the agent exited',
        '    exit     exit code 1',
        '    stderr   panic: no model',
        '',
      ].join('\n'),
    );
  });

  it('says how to sign in to a connector that waits for a sign-in, and where each credential is kept', () => {
    const text = renderStatus({
      home: '/h',
      pid: 1,
      restoring: false,
      connectors: [
        {
          key: 'linear',
          version: '1.0.0',
          credentialStore: 'keychain',
          runtime: { state: 'needs-auth', mcp: 'needs-auth', advice: 'Sign in.', signIn: true },
        },
        {
          key: 'keyed',
          version: '1.0.0',
          credentialStore: 'file',
          runtime: { state: 'ready', mcp: 'ready', toolCount: 1 },
        },
      ],
      sessions: [],
    });
    expect(text).toContain(
      "sign in  its server wants a sign-in: the dashboard's Sign in button (tuttid dashboard), or POST /v1/connectors/linear/authorize",
    );
    expect(text).toContain('secrets  kept in the OS keychain');
    expect(text).toContain('secrets  kept in a 0600 file of the tutti home');
    expect(text).not.toMatch(/keyed[\s\S]*sign in/);
  });

  it('says when nothing is installed, no session is open, or sessions are being restored', () => {
    const text = renderStatus({
      home: '/h',
      pid: 1,
      restoring: true,
      connectors: [],
      sessions: [],
    });
    expect(text).toContain('connectors: none installed');
    expect(text).toContain('agent sessions: none');
    expect(text).toContain('still being restored');
  });
});
