/**
 * The agents of the sessions bench, three ways each: the session request that has the
 * daemon start it, the same agent started directly with a plain MCP config naming the
 * `connector` server, and started directly from the daemon's host-driven projection
 * (`"mode": "prepare"`: the daemon's config for it, without the daemon's start path).
 */
import { join } from 'node:path';
import { query } from '@anthropic-ai/claude-agent-sdk';
import { NODE_BIN_DIR as BIN } from '@tutti/test-kit';
import { OPENCODE_OFFLINE } from '@tutti/test-kit/agent-env';
import type { Binding } from './daemon-control.js';
import { acpSessionWith, codexHomeWith, openAcp, openAppServer } from './direct-turns.js';

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

/** An ACP agent started directly: `initialize`, then `session/new` with the binding. */
function directAcpStart(command: string, args: string[], env: Env, cwd: string) {
  return async (binding: Binding) => {
    const { agent } = await openAcp(command, args, env, cwd, acpSessionWith(binding, cwd));
    return agent.stop;
  };
}

/** An ACP agent started from the daemon's projection: its env and args, its `session/new` params. */
function projectedAcpStart(command: string, args: string[], env: Env, cwd: string) {
  return async (projection: Projection) => {
    const allArgs = [...args, ...(projection.args ?? [])];
    const projectedEnv = { ...env, ...projection.env };
    const { agent } = await openAcp(command, allArgs, projectedEnv, cwd, projection.params);
    return agent.stop;
  };
}

/** `codex app-server` with `env` (its CODEX_HOME set): `initialize`, then `thread/start`. */
async function startAppServer(env: Env, cwd: string) {
  const { agent } = await openAppServer(join(BIN, 'codex'), env, cwd);
  return agent.stop;
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
      direct: async (binding: Binding) =>
        startAppServer({ ...env, CODEX_HOME: await codexHomeWith(scratch, binding) }, cwd),
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
