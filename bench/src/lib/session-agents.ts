/**
 * The agents of the sessions bench, three ways each: the session request that has the
 * daemon start it, the same agent started directly with a plain MCP config naming the
 * `connector` server, and started directly from the daemon's host-driven projection
 * (`"mode": "prepare"`: the daemon's config for it, without the daemon's start path).
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { NODE_BIN_DIR as BIN } from '@tutti/test-kit';
import { query } from '@anthropic-ai/claude-agent-sdk';
import type { Binding } from './daemon-control.js';
import { lineAgent } from './line-agent.js';

export type Env = Record<string, string>;

/** How the daemon starts an agent, and how the bench starts the same agent directly. */
export interface Agent {
  readonly request: Record<string, unknown>;
  direct(binding: Binding): Promise<() => void | Promise<void>>;
  /** Starts the agent from the daemon's host-driven projection (`"mode": "prepare"`). */
  projected(projection: Projection): Promise<() => void | Promise<void>>;
}

/** The `projection` of a prepare-mode session answer. */
export interface Projection {
  readonly params: Record<string, unknown>;
  readonly env: Record<string, string>;
  readonly args?: readonly string[];
}
const OPENCODE_OFFLINE = {
  OPENCODE_DISABLE_AUTOUPDATE: '1',
  OPENCODE_DISABLE_MODELS_FETCH: '1',
  OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
  OPENCODE_DISABLE_DEFAULT_PLUGINS: '1',
  OPENCODE_DISABLE_SHARE: '1',
};
/** An ACP agent started directly: `initialize`, then `session/new` with the binding. */
function directAcpStart(command: string, args: string[], env: Env, cwd: string) {
  return async (binding: Binding) => {
    const agent = lineAgent(command, args, env, cwd, true);
    await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const headers = Object.entries(binding.headers).map(([name, value]) => ({ name, value }));
    await agent.request('session/new', {
      cwd,
      mcpServers: [{ type: 'http', name: 'connector', url: binding.url, headers }],
    });
    return () => agent.stop();
  };
}

/** An ACP agent started from the daemon's projection: its env and args, its `session/new` params. */
function projectedAcpStart(command: string, args: string[], env: Env, cwd: string) {
  return async (projection: Projection) => {
    const agent = lineAgent(
      command,
      [...args, ...(projection.args ?? [])],
      { ...env, ...projection.env },
      cwd,
      true,
    );
    await agent.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    await agent.request('session/new', projection.params);
    return () => agent.stop();
  };
}

/** `codex app-server` on its own CODEX_HOME: `initialize`, then `thread/start`. */
async function startAppServer(env: Env, cwd: string) {
  const agent = lineAgent(join(BIN, 'codex'), ['app-server'], env, cwd, false);
  await agent.request('initialize', {
    clientInfo: { name: 'bench', title: null, version: '1' },
    capabilities: {},
  });
  agent.notify('initialized', {});
  await agent.request('thread/start', { cwd });
  return () => agent.stop();
}

/** Claude Code through the SDK with `options`, waiting for its initialize answer. */
async function startClaude(options: Parameters<typeof query>[0]['options']) {
  const never = (async function* () {
    await new Promise(() => {});
  })();
  const claude = query({ prompt: never, ...(options ? { options } : {}) });
  await claude.initializationResult();
  return () => claude.close();
}

/** The agents: how the daemon starts each, and how each is started directly. */
export function agentsOf(env: Env, cwd: string, scratch: string): Record<string, Agent> {
  const opencodeEnv = { ...env, ...OPENCODE_OFFLINE };
  const claudeEnv = { ...env, IS_SANDBOX: '1', CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1' };
  return {
    opencode: {
      request: {
        provider: 'opencode',
        env: opencodeEnv,
        launch: { command: join(BIN, 'opencode'), args: ['acp'] },
      },
      direct: directAcpStart(join(BIN, 'opencode'), ['acp'], opencodeEnv, cwd),
      projected: projectedAcpStart(join(BIN, 'opencode'), ['acp'], opencodeEnv, cwd),
    },
    codex: {
      request: { provider: 'codex', env, launch: { command: join(BIN, 'codex') } },
      async direct(binding: Binding) {
        const home = await mkdtemp(join(scratch, 'codex-home-'));
        await writeFile(
          join(home, 'config.toml'),
          `[mcp_servers.connector]\nurl = "${binding.url}"\nhttp_headers = { Authorization = "${binding.headers.Authorization}" }\n`,
          { mode: 0o600 },
        );
        return startAppServer({ ...env, CODEX_HOME: home }, cwd);
      },
      projected: (projection) => startAppServer({ ...env, ...projection.env }, cwd),
    },
    'claude-sdk': {
      request: { provider: 'claude-sdk', env: claudeEnv },
      direct: (binding: Binding) =>
        startClaude({
          cwd,
          env: claudeEnv,
          settingSources: [],
          strictMcpConfig: true,
          mcpServersDelivery: 'initialize',
          mcpServers: { connector: { type: 'http', url: binding.url, headers: binding.headers } },
        }),
      projected: (projection) => {
        const options = projection.params as { env?: Env };
        return startClaude({ ...options, env: { ...claudeEnv, ...options.env } });
      },
    },
    'claude-agent-acp': {
      request: {
        provider: 'acp',
        env: claudeEnv,
        launch: { command: join(BIN, 'claude-agent-acp') },
        // The generic ACP provider cannot make an agent ask before each tool call (the
        // daemon's default); under its own rules, as the direct legs start it.
        permissions: 'agent',
      },
      direct: directAcpStart(join(BIN, 'claude-agent-acp'), [], claudeEnv, cwd),
      projected: projectedAcpStart(join(BIN, 'claude-agent-acp'), [], claudeEnv, cwd),
    },
  };
}
