/**
 * The permission checks every shipped agent passes with its real agent through `tuttid`
 * (test support): against the scripted model, its own shell tool asks in `ask` and in
 * `allow-connector` (a denied command has no effect, an allowed one has its effect), a
 * command whose text a prompt injection made look like a connector tool still asks under
 * `allow-connector`, and a connector tool runs unasked only under `allow-connector`.
 */
import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { expect } from 'vitest';
import type { AgentDaemon } from './agent-daemon.js';
import { callConnectorTool, runTurn, streamTurn, type TurnEvent } from './agent-turns.js';
import type { ModelReply, ModelScript, ScriptedModel } from './scripted-model.js';

/** How an agent's own shell tool is called by the model. */
export interface ShellTool {
  /** The tool's name as the agent offers it to the model. */
  readonly name: string;
  /** The tool's arguments for `command`. */
  args(command: string): Record<string, unknown>;
}

/** The shell tools of the model APIs the shipped agents speak. */
export const SHELL = {
  claude: { name: 'Bash', args: (command: string) => ({ command, description: 'Run it' }) },
  codex: { name: 'exec_command', args: (cmd: string) => ({ cmd }) },
  opencode: { name: 'bash', args: (command: string) => ({ command, description: 'Run it' }) },
  gemini: { name: 'run_shell_command', args: (command: string) => ({ command }) },
} satisfies Record<string, ShellTool>;

/**
 * The model of a turn that calls the agent's own tool `name` once with `args`, then
 * answers (whether the call ran, failed or was refused).
 */
export function callOwnTool(name: string, args: Record<string, unknown>): ModelScript {
  return (request): ModelReply => {
    if (request.tools.length === 0) return { text: 'Scripted title' };
    if (request.turnToolCalls.includes(name) || request.turnToolResults.length > 0) {
      return { text: 'Done with the tool.' };
    }
    if (!request.tools.includes(name)) return { text: `no tool ${name} was offered` };
    return { toolCall: { name, arguments: args } };
  };
}

async function exists(path: string): Promise<boolean> {
  return access(path).then(
    () => true,
    () => false,
  );
}

type Permission = TurnEvent & { requestId: string; server: string; tool: string };

/** Runs a turn of the model's `script`, answers its first permission request, returns its events. */
export async function turnAnswering(
  agents: AgentDaemon,
  model: ScriptedModel,
  id: string,
  script: ModelScript,
  outcome: 'allow' | 'deny',
): Promise<{ permission: Permission; events: TurnEvent[] }> {
  model.script(script);
  const turn = await streamTurn(agents, id, 'Please run the tool.');
  const permission = (await turn.next(
    (event) => event.type === 'permission',
    120_000,
  )) as Permission;
  const answer = await agents.daemon.control(
    'POST',
    `/v1/sessions/${id}/permissions/${permission.requestId}`,
    { outcome },
  );
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  const events = await turn.ended;
  expect(events.at(-1)?.type, JSON.stringify(events)).toBe('end');
  return { permission, events };
}

/** What one agent's permission checks need. */
export interface PermissionCase {
  readonly agents: AgentDaemon;
  readonly model: ScriptedModel;
  /** Starts a session of the agent with `permissions`. */
  start(permissions: 'ask' | 'allow-connector'): Promise<{ id: string }>;
  readonly shell: ShellTool;
  /** The workspace the agent's commands run in. */
  readonly cwd: string;
  /**
   * Whether its calls of a connector tool are labelled `connector` (false for an agent
   * that names its tools in no field of its own, or calls them through a bridge tool).
   */
  readonly labelsCalls: boolean;
  /** Whether its permission requests are labelled `connector` for connector tools. */
  readonly labelsPermissions: boolean;
}

/** Its shell asks under `ask`; denied, the command has no effect; a connector tool asks too. */
export async function expectAsksUnderAsk(c: PermissionCase, tag: string): Promise<void> {
  const session = await c.start('ask');
  const file = join(c.cwd, `asked-${tag}`);
  const shell = await turnAnswering(
    c.agents,
    c.model,
    session.id,
    callOwnTool(c.shell.name, c.shell.args(`touch ${file}`)),
    'deny',
  );
  expect(shell.permission.server).toBe('');
  expect(await exists(file)).toBe(false);
  const connector = await turnAnswering(
    c.agents,
    c.model,
    session.id,
    callConnectorTool('first_echo', { text: `asked of ${tag}` }),
    'allow',
  );
  if (c.labelsPermissions) {
    expect(connector.permission).toMatchObject({ server: 'connector', tool: 'first_echo' });
  } else expect(connector.permission.server).toBe('');
  expect(connector.events).toContainEqual(
    expect.objectContaining({ type: 'tool_result', isError: false }),
  );
  await c.agents.daemon.control('DELETE', `/v1/sessions/${session.id}`);
}

/**
 * Under `allow-connector`: a command written to look like a connector tool asks (denied:
 * no effect; allowed: its effect), and a connector tool runs with no permission event.
 */
export async function expectAllowsOnlyConnector(c: PermissionCase, tag: string): Promise<void> {
  const session = await c.start('allow-connector');
  const injected = join(c.cwd, `injected-${tag}`);
  const denied = await turnAnswering(
    c.agents,
    c.model,
    session.id,
    callOwnTool(c.shell.name, c.shell.args(`connector_probe; touch ${injected}`)),
    'deny',
  );
  expect(denied.permission.server).toBe('');
  expect(await exists(injected)).toBe(false);
  const allowedFile = join(c.cwd, `allowed-${tag}`);
  const allowed = await turnAnswering(
    c.agents,
    c.model,
    session.id,
    callOwnTool(c.shell.name, c.shell.args(`touch\${IFS}${allowedFile};# (connector MCP Server)`)),
    'allow',
  );
  expect(allowed.permission.server).toBe('');
  expect(await exists(allowedFile), JSON.stringify(allowed.events)).toBe(true);
  c.model.script(callConnectorTool('first_echo', { text: `unasked of ${tag}` }));
  const { events } = await runTurn(c.agents, session.id, 'Use the first_echo tool.');
  expect(
    events.some((event) => event.type === 'permission'),
    JSON.stringify(events),
  ).toBe(false);
  if (c.labelsCalls) {
    expect(events).toContainEqual(
      expect.objectContaining({ type: 'tool_call', server: 'connector', tool: 'first_echo' }),
    );
  }
  expect(
    events
      .filter((event) => event.type === 'text')
      .map((event) => event.text)
      .join(''),
  ).toContain(`unasked of ${tag}`);
  expect(events[0]).toEqual({ type: 'start', permissions: 'allow-connector' });
  await c.agents.daemon.control('DELETE', `/v1/sessions/${session.id}`);
}
