/**
 * The operator commands of `tuttid`, for the person who runs the daemon: `tuttid status`
 * (connectors and sessions, and why one does not work) and `tuttid dashboard` (a new
 * dashboard login link). They ask the daemon running for the home through its control
 * API, as `tutti connector available` does (daemon-client.ts), and load nothing of the
 * daemon itself: the bin tries them first and starts the daemon otherwise.
 */
import { parseArgs } from 'node:util';
import { isTuttiError, resolveHome } from '@tutti/core/client';
import { connectToDaemon } from '../daemon-client.js';
import { fetchDashboardLogin, renderDashboardLogin } from './dashboard.js';
import { fetchStatus, renderStatus } from './status.js';

/** What each operator command prints with `--help`. */
export const OPERATOR_USAGE = {
  status: `Usage: tuttid status [--home DIR] [--json]

Prints how the tutti daemon running for the home isolates connector servers, each
installed connector with its status, the reason when it does not work, how its server is
isolated and the last lines its MCP server wrote to stderr, and each agent session with
its status and why it ended.

Options:
  --home DIR   tutti home (default: $TUTTI_HOME, else ~/.tutti)
  --json       print one JSON object: {home, pid, sandbox, connectors, sessions,
               restoring}, the sandbox and connectors as GET /v1/connectors answers them,
               the sessions as GET /v1/sessions lists them
  -h, --help   print this help and exit
`,
  dashboard: `Usage: tuttid dashboard [--home DIR] [--json]

Prints a new one-time login link of the dashboard of the tutti daemon running for the
home: it works once, for 5 minutes, in a browser on this machine.

Options:
  --home DIR   tutti home (default: $TUTTI_HOME, else ~/.tutti)
  --json       print one JSON object: {url, expiresAt}
  -h, --help   print this help and exit
`,
} as const;

/** The name of an operator command. */
export type OperatorCommand = keyof typeof OPERATOR_USAGE;

/** Where a command prints (tests give their own). */
export interface OperatorIo {
  readonly env?: NodeJS.ProcessEnv;
  readonly stdout?: (text: string) => void;
  readonly stderr?: (text: string) => void;
}

function isOperatorCommand(name: string | undefined): name is OperatorCommand {
  return name !== undefined && Object.hasOwn(OPERATOR_USAGE, name);
}

/**
 * Runs `argv` when it names an operator command (`status`, `dashboard`) and answers its
 * exit code; undefined when it does not (the daemon runs then).
 */
export async function runOperatorCommand(
  argv: readonly string[],
  io: OperatorIo = {},
): Promise<number | undefined> {
  const [command, ...rest] = argv;
  if (!isOperatorCommand(command)) return undefined;
  const out = io.stdout ?? ((text: string) => void process.stdout.write(text));
  const err = io.stderr ?? ((text: string) => void process.stderr.write(text));
  let values: { home?: string; json?: boolean; help?: boolean };
  try {
    ({ values } = parseArgs({
      args: rest,
      options: {
        home: { type: 'string' },
        json: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    err(`tuttid ${command}: ${(error as Error).message}\n${OPERATOR_USAGE[command]}`);
    return 2;
  }
  if (values.help) {
    out(OPERATOR_USAGE[command]);
    return 0;
  }
  const home = resolveHome({ flag: values.home, env: io.env ?? process.env });
  try {
    const daemon = await connectToDaemon(home);
    if (command === 'status') {
      const status = await fetchStatus(home, daemon);
      out(values.json ? `${JSON.stringify(status)}\n` : renderStatus(status));
    } else {
      const login = await fetchDashboardLogin(daemon);
      out(values.json ? `${JSON.stringify(login)}\n` : renderDashboardLogin(login));
    }
    return 0;
  } catch (error) {
    if (!isTuttiError(error)) throw error;
    if (values.json)
      out(`${JSON.stringify({ error: { code: error.code, message: error.message } })}\n`);
    err(`tuttid ${command}: ${error.message} (home: ${home}; ${error.code})\n`);
    return 1;
  }
}
