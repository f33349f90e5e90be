import { describe, expect, it } from 'vitest';
import type { DaemonConnection } from '../daemon-client.js';
import { type DaemonStatus, fetchStatus, renderStatus } from './status.js';

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

describe('the isolation of connector servers in tuttid status', () => {
  const view = {
    isolation: 'isolated' as const,
    platform: 'bubblewrap',
    profile: 'default' as const,
    network: 'host' as const,
    home: { read: [], write: [] },
    env: ['HOME', 'PATH', 'TUTTI_CONNECTOR_STATE_DIR'],
    limits: { memoryMiB: 2048, processes: 512 },
  };
  const withSandbox = (
    sandbox: DaemonStatus['sandbox'],
    connectors: DaemonStatus['connectors'] = [],
  ): DaemonStatus => ({ home: '/h', pid: 1, restoring: false, sandbox, connectors, sessions: [] });

  it('says in one line how the daemon isolates servers, under each mode', () => {
    const line = (sandbox: DaemonStatus['sandbox']) =>
      renderStatus(withSandbox(sandbox)).split('\n')[1];
    expect(line({ mode: 'auto', platform: 'bubblewrap' })).toBe(
      'sandbox  auto: connector servers run isolated by bubblewrap',
    );
    expect(line({ mode: 'auto', unavailable: 'bwrap is not on PATH' })).toBe(
      'sandbox  auto: connector servers run NOT isolated: bwrap is not on PATH',
    );
    expect(line({ mode: 'required', unavailable: 'bwrap is not on PATH' })).toBe(
      'sandbox  required: no connector server starts, they cannot be isolated here: bwrap is not on PATH',
    );
    expect(line({ mode: 'required', platform: 'bubblewrap' })).toBe(
      'sandbox  required: connector servers run isolated by bubblewrap',
    );
    expect(line({ mode: 'off' })).toBe(
      'sandbox  off: connector servers run without isolation (tuttid --sandbox off)',
    );
    // A daemon that says nothing of it: no line.
    expect(line(undefined)).toBe('');
    // What the daemon says stays on its line.
    expect(line({ mode: 'auto', unavailable: 'no\nbwrap \u001b[2J' })).toBe(
      'sandbox  auto: connector servers run NOT isolated: no bwrap ?[2J',
    );
  });

  it('shows how each stdio server runs, what it asked for and its variables by name', () => {
    const text = renderStatus(
      withSandbox({ mode: 'auto', platform: 'bubblewrap' }, [
        {
          key: 'notes',
          version: '1.0.0',
          sandbox: view,
          runtime: { state: 'ready', mcp: 'ready', toolCount: 3 },
        },
        {
          key: 'files',
          version: '2.0.0',
          sandbox: {
            ...view,
            profile: 'declared',
            network: 'none',
            home: { read: ['~/Documents', '~/x\u001b[31m'], write: ['~/notes'] },
            limits: { memoryMiB: 256, processes: 16 },
          },
          runtime: { state: 'ready', mcp: 'ready', toolCount: 1 },
        },
        { key: 'hello', version: '1.0.0', runtime: { state: 'ready', cli: 'ready' } },
      ]),
    );
    expect(text).toContain(
      [
        '  notes  ready  1.0.0  3 MCP tools (ready)',
        '    sandbox  isolated by bubblewrap, default profile: network host, limits 2048 MiB, 512 processes',
        '             env: HOME, PATH, TUTTI_CONNECTOR_STATE_DIR',
        '  files  ready  2.0.0  1 MCP tool (ready)',
        '    sandbox  isolated by bubblewrap, declared profile: network none, limits 256 MiB, 16 processes',
        '             home: reads ~/Documents, ~/x?[31m; writes ~/notes',
        '             env: HOME, PATH, TUTTI_CONNECTOR_STATE_DIR',
        '  hello  ready  1.0.0  CLI (ready)',
        '',
      ].join('\n'),
    );
  });

  it('says when a server is not isolated, and why it did not start when it was refused', () => {
    const line = (isolation: 'not-isolated' | 'off' | 'refused') =>
      renderStatus(
        withSandbox({ mode: 'auto' }, [
          { key: 'k', sandbox: { ...view, isolation, platform: undefined }, runtime: null },
        ]),
      )
        .split('\n')
        .find((l) => l.startsWith('    sandbox'));
    expect(line('not-isolated')).toBe(
      '    sandbox  NOT isolated (no sandbox works here); its default profile asks for network host',
    );
    expect(line('off')).toBe(
      '    sandbox  not isolated (tuttid --sandbox off); its default profile asks for network host',
    );
    expect(line('refused')).toBe(
      '    sandbox  not started: it cannot be isolated here (tuttid --sandbox required); its default profile asks for network host',
    );
  });
});

describe('what tuttid status asks the daemon', () => {
  const daemon = (connectors: unknown) => ({
    info: { pid: 7 } as DaemonConnection['info'],
    call: async (_method: string, path: string) =>
      path === '/v1/connectors' ? connectors : { sessions: [], restoring: false },
  });

  it('carries the daemon sandbox of GET /v1/connectors, and none when the daemon has none', async () => {
    const sandbox = { mode: 'auto', unavailable: 'bwrap is not on PATH' };
    expect(await fetchStatus('/h', daemon({ connectors: [], sandbox }))).toEqual({
      home: '/h',
      pid: 7,
      sandbox,
      connectors: [],
      sessions: [],
      restoring: false,
    });
    expect(await fetchStatus('/h', daemon({ connectors: [] }))).not.toHaveProperty('sandbox');
  });
});
