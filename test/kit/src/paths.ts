/**
 * Where the test fixtures, the preloads and the repository's own bins are on disk. Every
 * package reaches a fixture through these paths, never by a relative path of its own into
 * `test/`. The same from `src/` and `dist/` (both one level under the kit's folder).
 */
import { fileURLToPath } from 'node:url';

const at = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** The repository's root folder, with a trailing slash. */
export const REPO_ROOT = at('../../../');

/** `node_modules/.bin` of the repository: the agents the end-to-end tests run live there. */
export const NODE_BIN_DIR = at('../../../node_modules/.bin');

/** The `codex` npm wrapper (it spawns the native binary as a child). */
export const CODEX_BIN = `${NODE_BIN_DIR}/codex`;

/** The native Claude Code binary the Agent SDK runs by default on linux-x64. */
export const CLAUDE_CODE_BIN = at(
  '../../../node_modules/@anthropic-ai/claude-agent-sdk-linux-x64/claude',
);

/** The built `tuttid` bin, as a person runs it (it runs `cli/dist`). */
export const TUTTID_BIN = at('../../../cli/bin/tuttid.js');

/** The built `tutti` bin. */
export const TUTTI_BIN = at('../../../cli/bin/tutti.js');

/** `tuttid` run from its TypeScript sources (with `-C tutti-source` and {@link TS_LOADER}). */
export const TUTTID_FROM_SOURCE = at('../src/tuttid-from-source.mjs');

/** The fixture folder: `acp/`, `agents/`, `connectors/`, `homes/`, `plugins/`, `preloads/`, `upstream/`. */
export const FIXTURES = at('../fixtures/');

/** Example connector releases: `echo`, `keyed`, `skills-only`, `remote-*`, `invalid/*`. */
export const CONNECTOR_FIXTURES = at('../fixtures/connectors/');

/** Homes made by earlier releases' daemons, one `v<layout version>/` each. */
export const HOME_FIXTURES = at('../fixtures/homes/');

/** Folder of the MCP upstream fixtures (servers spawned by the tests, and their tool kit). */
export const UPSTREAM_FIXTURES = at('../fixtures/upstream/');

/** The stdio MCP upstream fixture (tools echo, sleep, crash, add_tool, env_keys, ...). */
export const STDIO_SERVER = at('../fixtures/upstream/stdio-server.mjs');

/** An upstream that never answers initialize (and ignores SIGTERM, with a child of its own). */
export const SILENT_SERVER = at('../fixtures/upstream/silent-server.mjs');

/** A stdio upstream whose `die` tool exits the process while the call runs (core's server tests). */
export const DYING_SERVER = at('../fixtures/upstream/dying-server.mjs');

/** An upstream that writes one line over the message bound. */
export const HUGE_LINE_SERVER = at('../fixtures/upstream/huge-line-server.mjs');

/** The Streamable HTTP upstream fixture as a module (`startHttpUpstream`). */
export const HTTP_SERVER = at('../fixtures/upstream/http-server.mjs');

/** The ACP agent that follows the script in its environment. */
export const SCRIPTED_ACP_AGENT = at('../fixtures/acp/scripted-agent.mjs');

/** An agent that fails on purpose (ACP, app-server or Claude Code protocol, by argv). */
export const FAULTY_AGENT = at('../fixtures/agents/faulty-agent.mjs');

/** The faulty agent as an executable speaking the Claude Code protocol. */
export const FAULTY_CLAUDE = at('../fixtures/agents/faulty-claude');

/** A `tutti-agent` stand-in: `codex` reading its home from TUTTI_AGENT_HOME. */
export const TUTTI_AGENT_BIN = at('../fixtures/agents/tutti-agent');

/** A connector CLI entrypoint for the shim tests (its first argument picks a behaviour). */
export const SHIM_TARGET = at('../fixtures/cli/shim-target.mjs');

/** A plugin that records what it saw (the plugin tests' fixture). */
export const AUDIT_PLUGIN = at('../fixtures/plugins/audit-plugin.mjs');

/**
 * Lets a plain `node` run TypeScript sources: `node -C tutti-source --import <TS_LOADER>`.
 */
export const TS_LOADER = at('../fixtures/preloads/ts-loader.mjs');

/** Appends every module a process loads to $TUTTI_TEST_MODULE_LOG (`node --import`). */
export const RECORD_MODULES = at('../fixtures/preloads/record-modules.mjs');

/** Binds every TCP listen with no host or a wildcard host to 127.0.0.1 (`node --import`). */
export const LOOPBACK_ONLY = at('../fixtures/preloads/loopback-only.mjs');

/** Makes SIGUSR2 throw an error no code catches (`node --import`). */
export const THROW_ON_SIGNAL = at('../fixtures/preloads/throw-on-signal.mjs');
