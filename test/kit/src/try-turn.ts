/**
 * `npm run try-turn [-- codex|claude-sdk]`: one real agent turn that calls a connector tool,
 * offline, to see the whole path without a paid model. It starts a `tuttid` (from the
 * sources) on a fresh temp home, which installs the demo connectors; the scripted model the
 * tests use, on 127.0.0.1, which answers the agent's first request by calling
 * `notes_add_note` and the next one by quoting the tool's result; and one agent session
 * (Codex by default, or Claude Code through the Agent SDK). It runs one turn, prints its
 * events as they come, then stops everything it started and removes every folder it made
 * (the daemon's home, the agent's HOME, XDG and Codex folders, its session homes under
 * TMPDIR), also on Ctrl-C. Exits 0 when the agent called the tool and the turn ended.
 */
import { mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { NODE_BIN_DIR as NODE_BIN } from './paths.js';
import { callConnectorTool, scriptedClaudeEnv, scriptedCodexConfig } from './agent-turns.js';
import { type ScriptedModel, startScriptedModel } from './scripted-model.js';
import { attachTuttid, type LaunchedTuttid, launchTuttid, type TuttidProcess } from './tuttid.js';

const AGENTS = ['codex', 'claude-sdk'] as const;
type Agent = (typeof AGENTS)[number];
const TOOL = 'notes_add_note';

const say = (text: string) => process.stdout.write(`try-turn: ${text}\n`);

/** What was started, so that everything goes again, whatever happens. */
const started: { root?: string; model?: ScriptedModel; daemon?: LaunchedTuttid } = {};
let cleaning: Promise<void> | undefined;

function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    const { daemon, model, root } = started;
    if (daemon && daemon.child.exitCode === null && daemon.child.signalCode === null) {
      // The daemon closes its agent sessions (their whole process groups) and connectors.
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
    await model?.close();
    if (root) await rm(root, { recursive: true, force: true });
  })();
  return cleaning;
}

/** The folders an agent writes to, all under `root`, and the environment naming them. */
async function agentFolders(root: string) {
  const dirs = {
    home: join(root, 'home'),
    work: join(root, 'work'),
    tmp: join(root, 'tmp'),
    codexHome: join(root, 'codex-home'),
    XDG_CONFIG_HOME: join(root, 'xdg', 'config'),
    XDG_DATA_HOME: join(root, 'xdg', 'data'),
    XDG_STATE_HOME: join(root, 'xdg', 'state'),
    XDG_CACHE_HOME: join(root, 'xdg', 'cache'),
  };
  for (const dir of Object.values(dirs)) await mkdir(dir, { recursive: true, mode: 0o700 });
  const { XDG_CONFIG_HOME, XDG_DATA_HOME, XDG_STATE_HOME, XDG_CACHE_HOME } = dirs;
  const env = {
    PATH: `${NODE_BIN}:${process.env.PATH ?? '/usr/bin:/bin'}`,
    HOME: dirs.home,
    XDG_CONFIG_HOME,
    XDG_DATA_HOME,
    XDG_STATE_HOME,
    XDG_CACHE_HOME,
  };
  return { ...dirs, env };
}

/** Reads a turn's event stream, printing each event as it comes; resolves with them all. */
async function streamTurn(daemon: TuttidProcess, session: string, prompt: string) {
  const response = await fetch(`${daemon.ready.controlUrl}/v1/sessions/${session}/turns`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${daemon.controlToken}`,
      'content-type': 'application/json',
      accept: 'text/event-stream',
    },
    body: JSON.stringify({ prompt }),
  });
  if (response.status !== 200 || !response.body) {
    throw new Error(`the turn was refused (${response.status}): ${await response.text()}`);
  }
  const events: { type: string; [field: string]: unknown }[] = [];
  let buffer = '';
  for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>) {
    buffer += Buffer.from(chunk).toString('utf8');
    for (let end = buffer.indexOf('\n\n'); end !== -1; end = buffer.indexOf('\n\n')) {
      const data = buffer
        .slice(0, end)
        .split('\n')
        .find((line) => line.startsWith('data: '));
      buffer = buffer.slice(end + 2);
      if (!data) continue;
      const event = JSON.parse(data.slice('data: '.length)) as (typeof events)[number];
      events.push(event);
      const { type, ...fields } = event;
      process.stdout.write(`  ${type.padEnd(11)} ${JSON.stringify(fields)}\n`);
    }
  }
  return events;
}

async function tryTurn(agent: Agent): Promise<boolean> {
  const root = await realpath(await mkdtemp(join(tmpdir(), 'tutti-try-turn-')));
  started.root = root;
  const dirs = await agentFolders(root);
  const model = await startScriptedModel(
    callConnectorTool(TOOL, { text: 'Tried tutti offline', tags: ['try-turn'] }),
  );
  started.model = model;
  await writeFile(join(dirs.codexHome, 'config.toml'), scriptedCodexConfig(model));

  // The daemon's own environment: its HOME (where the notes connector keeps its file),
  // TMPDIR (the sessions' homes) and CODEX_HOME (the config its Codex sessions start from).
  Object.assign(process.env, {
    ...dirs.env,
    TMPDIR: dirs.tmp,
    CODEX_HOME: dirs.codexHome,
    TUTTI_AGENT_HOME: dirs.codexHome,
  });
  const home = join(root, 'tutti-home');
  const launched = launchTuttid(home);
  started.daemon = launched;
  const ready = await launched.ready;
  if (!ready) throw new Error(`tuttid did not start:\n${launched.stderr()}`);
  const daemon = await attachTuttid(home, launched, ready);
  const settled = await daemon.settled;
  say(`tuttid (pid ${ready.pid}) runs on the temp home ${home}`);
  say(`connectors: ${settled?.connectors.map((c) => `${c.key} ${c.state}`).join(', ') ?? 'none'}`);
  say(`the scripted model answers on ${model.url}; the agent is ${agent}`);

  const opened = await daemon.control('POST', '/v1/sessions', {
    provider: agent,
    workspaceId: 'try-turn',
    cwd: dirs.work,
    permissions: 'allow-connector',
    env: {
      ...dirs.env,
      ...(agent === 'codex' ? { OPENAI_API_KEY: 'test-key' } : scriptedClaudeEnv(model)),
    },
  });
  if (opened.status !== 200) {
    throw new Error(`the session did not start (${opened.status}): ${JSON.stringify(opened.body)}`);
  }
  const session = opened.body.session.id as string;
  say(`session ${session} is ${opened.body.session.status}; its turn:`);
  const events = await streamTurn(
    daemon,
    session,
    `Please note "Tried tutti offline" with ${TOOL}.`,
  );
  const called = events.some(
    (event) =>
      event.type === 'tool_call' &&
      event.server === 'connector' &&
      event.tool === TOOL &&
      event.status === 'completed',
  );
  const end = events.at(-1);
  await daemon.control('DELETE', `/v1/sessions/${session}`);
  if (called && end?.type === 'end' && end.stopReason === 'end_turn') {
    say(`the agent called ${TOOL} on the connector server and ended its turn`);
    return true;
  }
  say(`the turn did not go as expected (no completed ${TOOL} call, or no end_turn)`);
  return false;
}

async function main(): Promise<void> {
  const agent = (process.argv[2] ?? 'codex') as Agent;
  if (!AGENTS.includes(agent)) {
    process.stderr.write(`Usage: npm run try-turn [-- ${AGENTS.join('|')}]\n`);
    process.exitCode = 2;
    return;
  }
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      say(`${signal}: stopping`);
      void cleanUp().finally(() => process.exit(130));
    });
  }
  let ok = false;
  try {
    ok = await tryTurn(agent);
  } catch (error) {
    // Stopped by a signal: what failed then is the stop itself.
    if (!cleaning) process.stderr.write(`try-turn: ${(error as Error).message}\n`);
  } finally {
    await cleanUp();
    if (started.root)
      say(`cleaned up: the daemon, its agent and the model stopped, ${started.root} removed`);
  }
  process.exitCode = ok ? 0 : 1;
}

await main();
