/**
 * Turns of real agents through a real `tuttid`, for tests: how each agent is pointed at the
 * scripted model offline (AGENT-CLIENTS.md), the model script that calls a connector tool
 * under the name each API offers it, and clients of the turn API (one JSON answer, or the
 * event stream read as it comes).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { AgentDaemon } from './agent-daemon.js';
import type { AgentHomes } from './agent-env.js';
import { NODE_BIN_DIR, TUTTI_AGENT_BIN as TUTTI_AGENT } from './paths.js';
import type { ModelReply, ModelRequest, ModelScript, ScriptedModel } from './scripted-model.js';

const BIN = `${NODE_BIN_DIR}/`;

/** One event of a turn, as the turn API answers it. */
export interface TurnEvent {
  readonly type: string;
  readonly [key: string]: unknown;
}

/** The agents that take turns, as `POST /v1/sessions` bodies (without workspace and cwd). */
export type TurnAgent = 'claude-sdk' | 'codex' | 'tutti-agent' | 'opencode';

/** The name a connector tool is offered under in a request of this API, if it is. */
function offeredName(request: ModelRequest, localTool: string): string | undefined {
  const candidates =
    request.api === 'anthropic'
      ? [`mcp__connector__${localTool}`]
      : request.api === 'responses'
        ? [`mcp__connector/${localTool}`]
        : request.api === 'gemini'
          ? [`mcp_connector_${localTool}`]
          : [`connector_${localTool}`, `mcp__connector__${localTool}`];
  return candidates.find((name) => request.tools.includes(name));
}

/** Tools that only find deferred tools (Claude Code, Qwen Code): their results are no answer. */
const SEARCH_TOOLS = new Set(['ToolSearch', 'tool_search']);

/**
 * The model of a tool-calling turn: call the connector tool `localTool` (e.g. `first_echo`)
 * with `args`, loading it first when it is deferred (Claude Code's ToolSearch; Qwen Code's
 * tool_search, then tool_call), then answer quoting the tool's result. A request with no
 * tools (a title request) gets a title.
 */
export function callConnectorTool(localTool: string, args: Record<string, unknown>): ModelScript {
  return (request): ModelReply => {
    if (request.tools.length === 0) return { text: 'Scripted title' };
    const results = request.turnToolResults;
    const last = request.turnToolCalls.at(-1);
    if (results.length > 0 && last && !SEARCH_TOOLS.has(last)) {
      return { text: `The tool said: ${results[results.length - 1]}` };
    }
    if (last === 'tool_search' && request.tools.includes('tool_call')) {
      return {
        toolCall: {
          name: 'tool_call',
          arguments: { name: `mcp__connector__${localTool}`, arguments: args },
        },
      };
    }
    if (request.tools.includes('tool_search') && !offeredName(request, localTool)) {
      return {
        toolCall: {
          name: 'tool_search',
          arguments: { query: `select:mcp__connector__${localTool}` },
        },
      };
    }
    const name = offeredName(request, localTool);
    if (name) return { toolCall: { name, arguments: args } };
    if (request.tools.includes('ToolSearch')) {
      return {
        toolCall: {
          name: 'ToolSearch',
          arguments: { query: `select:mcp__connector__${localTool}` },
        },
      };
    }
    return { text: `no connector tool ${localTool} was offered` };
  };
}

/**
 * The `config.toml` of a Codex (or Tutti Agent) home that points the agent at the scripted
 * model (Responses API), offline.
 */
export function scriptedCodexConfig(model: Pick<ScriptedModel, 'url'>): string {
  return [
    'model = "scripted-model"',
    'model_provider = "scripted"',
    // The user's sandbox: commands may write the workspace (Debian's bubblewrap runs it).
    'sandbox_mode = "workspace-write"',
    '',
    '[features]',
    'plugins = false',
    '',
    '[model_providers.scripted]',
    'name = "scripted"',
    `base_url = "${model.url}/v1"`,
    'wire_api = "responses"',
    '',
  ].join('\n');
}

/** What Claude Code (the Agent SDK) needs in its environment to use the scripted model. */
export function scriptedClaudeEnv(model: Pick<ScriptedModel, 'url'>): Record<string, string> {
  return {
    IS_SANDBOX: '1',
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: 'test-key',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  };
}

/** The fields of a session request that start one agent against the scripted model. */
export interface TurnAgentBody {
  readonly provider: string;
  readonly env: Record<string, string>;
  readonly launch?: { readonly command: string; readonly args?: readonly string[] };
  readonly [key: string]: unknown;
}

/**
 * Writes what each agent reads to reach the scripted model (the daemon's own Codex and Tutti
 * Agent homes, an opencode config) and returns, per agent, the session request fields.
 */
export async function turnAgents(
  agents: AgentHomes,
  model: Pick<ScriptedModel, 'url'>,
): Promise<Record<TurnAgent, TurnAgentBody>> {
  const codexConfig = scriptedCodexConfig(model);
  for (const home of [agents.codexHome, agents.tuttiAgentHome]) {
    await mkdir(home, { recursive: true });
    await writeFile(join(home, 'config.toml'), codexConfig);
  }
  const opencodeDir = join(agents.agentEnv.root, 'opencode-config');
  await mkdir(join(agents.agentEnv.env.XDG_CONFIG_HOME!, 'opencode', 'node_modules'), {
    recursive: true,
  });
  // opencode installs its plugin package into its config folder unless one is there.
  for (const file of ['package.json', 'package-lock.json']) {
    await writeFile(join(agents.agentEnv.env.XDG_CONFIG_HOME!, 'opencode', file), '{}');
  }
  await mkdir(opencodeDir, { recursive: true });
  const opencodeConfig = join(opencodeDir, 'opencode.json');
  await writeFile(
    opencodeConfig,
    JSON.stringify({
      model: 'scripted/scripted-model',
      provider: {
        scripted: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Scripted',
          options: { baseURL: `${model.url}/v1`, apiKey: 'test-key' },
          models: { 'scripted-model': { name: 'Scripted model' } },
        },
      },
    }),
  );
  const env = agents.env;
  return {
    'claude-sdk': {
      provider: 'claude-sdk',
      env: { ...env, ...scriptedClaudeEnv(model) },
    },
    codex: { provider: 'codex', env: { ...env, OPENAI_API_KEY: 'test-key' } },
    'tutti-agent': {
      provider: 'tutti-agent',
      env: { ...env, OPENAI_API_KEY: 'test-key' },
      launch: { command: TUTTI_AGENT },
    },
    opencode: {
      provider: 'opencode',
      env: { ...env, OPENCODE_CONFIG: opencodeConfig },
      launch: { command: join(BIN, 'opencode'), args: ['acp'] },
    },
  };
}

/** Runs a turn and resolves every event in one answer (`Accept: application/json`). */
export async function runTurn(
  agents: AgentDaemon,
  id: string,
  prompt: unknown,
): Promise<{ status: number; events: TurnEvent[]; body: unknown }> {
  const response = await fetch(`${agents.daemon.ready.controlUrl}/v1/sessions/${id}/turns`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${agents.daemon.controlToken}`,
      'content-type': 'application/json',
      accept: 'application/json',
    },
    body: JSON.stringify({ prompt }),
  });
  const body = (await response.json()) as { events?: TurnEvent[] };
  return { status: response.status, events: body.events ?? [], body };
}

/** A turn read as an event stream, event by event. */
export interface StreamedTurn {
  readonly events: TurnEvent[];
  /** Resolves with the first event (from the start) that matches. */
  next(match: (event: TurnEvent) => boolean, timeoutMs?: number): Promise<TurnEvent>;
  /** Resolves with every event once the stream ended. */
  readonly ended: Promise<TurnEvent[]>;
}

/** Starts a turn as a `text/event-stream`. */
export async function streamTurn(
  agents: AgentDaemon,
  id: string,
  prompt: unknown,
): Promise<StreamedTurn> {
  const response = await fetch(`${agents.daemon.ready.controlUrl}/v1/sessions/${id}/turns`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${agents.daemon.controlToken}`,
      'content-type': 'application/json',
      accept: 'text/event-stream',
    },
    body: JSON.stringify({ prompt }),
  });
  if (response.status !== 200 || !response.body) {
    throw new Error(`turn answered ${response.status}: ${await response.text()}`);
  }
  const events: TurnEvent[] = [];
  const wakers = new Set<() => void>();
  const ended = (async () => {
    let buffer = '';
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
      buffer += Buffer.from(chunk).toString('utf8');
      let end = buffer.indexOf('\n\n');
      while (end !== -1) {
        const data = buffer
          .slice(0, end)
          .split('\n')
          .find((line) => line.startsWith('data: '));
        buffer = buffer.slice(end + 2);
        if (data) events.push(JSON.parse(data.slice(6)) as TurnEvent);
        for (const wake of [...wakers]) wake();
        end = buffer.indexOf('\n\n');
      }
    }
    for (const wake of [...wakers]) wake();
    return events;
  })();
  return {
    events,
    ended,
    next(match, timeoutMs = 60_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          const found = events.find(match);
          if (found) {
            wakers.delete(check);
            clearTimeout(timer);
            resolve(found);
          }
        };
        const timer = setTimeout(() => {
          wakers.delete(check);
          reject(
            new Error(`no matching turn event within ${timeoutMs} ms: ${JSON.stringify(events)}`),
          );
        }, timeoutMs);
        wakers.add(check);
        check();
      });
    },
  };
}
