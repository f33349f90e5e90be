/**
 * The agents of the turn bench driven directly, each in its own protocol, with the same
 * MCP server and model as through the daemon: ACP `session/prompt` over stdio (opencode),
 * app-server `turn/start` (codex), the Claude Agent SDK's `query()` with streaming input.
 * A turn records, on the monotonic clock, when each text delta reached this client (the
 * message a direct client would take as its text event) and resolves when the turn ended.
 * The ACP and app-server agents are the kit's JSON-RPC line client (`@tutti/test-kit/line-rpc`)
 * on the bench's process supervisor; their openers serve the sessions bench too.
 */
import { mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { query, type SDKUserMessage } from '@anthropic-ai/claude-agent-sdk';
import { type LineMessage, type LineRpc, spawnLineRpc } from '@tutti/test-kit/line-rpc';
import type { Binding } from './daemon-control.js';
import { supervise } from './processes.js';
import { type Seen, see } from './turn-stamps.js';

/** An agent the bench drives itself. */
export interface DirectTurnAgent {
  /** Sends `text` as a turn; resolves with the send time once the turn ended. */
  turn(text: string, received: Seen): Promise<bigint>;
  stop(): Promise<void>;
}

/** Runs `open` on an agent that already started; stops it when `open` throws. */
async function openOrStop<T>(stop: () => Promise<void>, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * An agent on JSON-RPC lines (the kit's client; the agent's own requests get an empty
 * answer), stopped through the bench's supervisor; `listen` sets or clears the listener
 * each line the agent writes goes to, with the monotonic time it was read.
 */
export interface LineAgent {
  readonly rpc: LineRpc;
  listen(listener: ((message: LineMessage, line: string, at: bigint) => void) | undefined): void;
  stop(): Promise<void>;
}

function lineAgent(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  cwd: string,
  jsonrpc: boolean,
): LineAgent {
  let listener: ((message: LineMessage, line: string, at: bigint) => void) | undefined;
  const rpc = spawnLineRpc(command, args, {
    cwd,
    env,
    jsonrpc,
    answerRequests: true,
    onLine: (message, line, at) => listener?.(message, line, at),
  });
  const { stop } = supervise(rpc.child);
  return {
    rpc,
    listen(next) {
      listener = next;
    },
    stop,
  };
}

/** An ACP agent started as `command args`: `initialize`, then `session/new` with `params`. */
export async function openAcp(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  cwd: string,
  params: Record<string, unknown>,
): Promise<{ agent: LineAgent; sessionId: string }> {
  const agent = lineAgent(command, args, env, cwd, true);
  return openOrStop(agent.stop, async () => {
    await agent.rpc.request('initialize', { protocolVersion: 1, clientCapabilities: {} });
    const { sessionId } = await agent.rpc.request<{ sessionId: string }>('session/new', params);
    return { agent, sessionId };
  });
}

/** The `session/new` params that give an ACP agent `binding` as its `connector` server. */
export function acpSessionWith(binding: Binding, cwd: string): Record<string, unknown> {
  const headers = Object.entries(binding.headers).map(([name, value]) => ({ name, value }));
  return { cwd, mcpServers: [{ type: 'http', name: 'connector', url: binding.url, headers }] };
}

/** `codex app-server` (`command`): `initialize`, `initialized`, then `thread/start`. */
export async function openAppServer(
  command: string,
  env: Record<string, string>,
  cwd: string,
): Promise<{ agent: LineAgent; threadId: string }> {
  const agent = lineAgent(command, ['app-server'], env, cwd, false);
  return openOrStop(agent.stop, async () => {
    await agent.rpc.request('initialize', {
      clientInfo: { name: 'bench', title: null, version: '1' },
      capabilities: {},
    });
    agent.rpc.notify('initialized', {});
    const { thread } = await agent.rpc.request<{ thread: { id: string } }>('thread/start', { cwd });
    return { agent, threadId: thread.id };
  });
}

/** A new CODEX_HOME under `scratch`: `modelConfig` plus `binding` as the `connector` server. */
export async function codexHomeWith(
  scratch: string,
  binding: Binding,
  modelConfig = '',
): Promise<string> {
  const home = await mkdtemp(join(scratch, 'codex-direct-'));
  await writeFile(
    join(home, 'config.toml'),
    `${modelConfig}\n[mcp_servers.connector]\nurl = "${binding.url}"\nhttp_headers = { Authorization = "${binding.headers.Authorization}" }\ndefault_tools_approval_mode = "approve"\n`,
    { mode: 0o600 },
  );
  return home;
}

/** opencode (or any ACP agent) started as `command args`, with `binding` in `session/new`. */
export async function directAcp(
  command: string,
  args: readonly string[],
  env: Record<string, string>,
  cwd: string,
  binding: Binding,
): Promise<DirectTurnAgent> {
  const { agent, sessionId } = await openAcp(command, args, env, cwd, acpSessionWith(binding, cwd));
  return {
    async turn(text, received) {
      agent.listen((message, line, at) => {
        if (message.method === 'session/update') see(received, line, at);
      });
      const sentAt = process.hrtime.bigint();
      await agent.rpc.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
      agent.listen(undefined);
      return sentAt;
    },
    stop: agent.stop,
  };
}

/** `codex app-server` on its own CODEX_HOME: `modelConfig` plus `binding` as `connector`. */
export async function directAppServer(
  command: string,
  env: Record<string, string>,
  cwd: string,
  scratch: string,
  modelConfig: string,
  binding: Binding,
): Promise<DirectTurnAgent> {
  const home = await codexHomeWith(scratch, binding, modelConfig);
  const { agent, threadId } = await openAppServer(command, { ...env, CODEX_HOME: home }, cwd);
  return {
    async turn(text, received) {
      let done!: () => void;
      const completed = new Promise<void>((resolve) => {
        done = resolve;
      });
      agent.listen((message, line, at) => {
        if (message.method === 'item/agentMessage/delta') see(received, line, at);
        else if (message.method === 'turn/completed') done();
      });
      const sentAt = process.hrtime.bigint();
      await agent.rpc.request('turn/start', {
        threadId,
        input: [{ type: 'text', text, text_elements: [] }],
      });
      await completed;
      agent.listen(undefined);
      return sentAt;
    },
    stop: agent.stop,
  };
}

/** Claude Code through the Agent SDK (`executable`: Claude Code, here behind the shim). */
export async function directClaude(
  executable: string,
  env: Record<string, string>,
  cwd: string,
  binding: Binding,
): Promise<DirectTurnAgent> {
  const queue: SDKUserMessage[] = [];
  let wake: (() => void) | undefined;
  let ended = false;
  const prompt = (async function* () {
    for (;;) {
      const next = queue.shift();
      if (next) yield next;
      else if (ended) return;
      else await new Promise<void>((resolve) => (wake = resolve));
    }
  })();
  const claude = query({
    prompt,
    options: {
      cwd,
      env,
      pathToClaudeCodeExecutable: executable,
      settingSources: [],
      includePartialMessages: true,
      mcpServersDelivery: 'initialize',
      mcpServers: { connector: { type: 'http', url: binding.url, headers: binding.headers } },
      allowedTools: ['mcp__connector'],
    },
  });
  let current: { received: Seen; done(): void; fail(error: Error): void } | undefined;
  const pump = (async () => {
    for await (const message of claude) {
      const at = process.hrtime.bigint();
      if (!current) continue;
      if (message.type === 'stream_event') {
        const event = message.event as { type?: string; delta?: { type?: string; text?: string } };
        if (event.type === 'content_block_delta' && event.delta?.type === 'text_delta') {
          see(current.received, event.delta.text ?? '', at);
        }
      } else if (message.type === 'result') {
        if (message.subtype === 'success') current.done();
        else current.fail(new Error(`Claude Code ended the turn with ${message.subtype}`));
      }
    }
  })();
  pump.catch((error: unknown) => current?.fail(error as Error));
  const stop = async () => {
    ended = true;
    wake?.();
    claude.close();
    await pump.catch(() => {});
  };
  await openOrStop(stop, () => claude.initializationResult());
  return {
    async turn(text, received) {
      const finished = new Promise<void>((done, fail) => {
        current = { received, done, fail };
      });
      const sentAt = process.hrtime.bigint();
      queue.push({
        type: 'user',
        message: { role: 'user', content: [{ type: 'text', text }] },
        parent_tool_use_id: null,
      } as SDKUserMessage);
      wake?.();
      await finished;
      current = undefined;
      return sentAt;
    },
    stop,
  };
}
