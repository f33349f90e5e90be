/**
 * The command line of `tuttid` (the daemon): `[--home DIR] [--port N] [--control-port N]`
 * `[--json] [--no-demo] [--log-level L] [--log-file-size BYTES] [--log-file-count N]`
 * `[--mcp-body-limit BYTES] [--control-body-limit BYTES] [--max-listen-streams N]`
 * `[--max-argument-depth N] [--max-release-mb N] [--agent-timeout MS]`
 * `[--permission-timeout MS] [--elicitation-timeout MS] [--max-parked-calls N]`
 * `[--max-parked-calls-per-session N] [--max-sessions N] [--park-after N]`
 * `[--credential-store auto|keychain|file] [--oauth-client-metadata-url URL]`
 * `[--sandbox auto|required|off] [--otlp-endpoint URL] [--trace-baggage] [--no-audit]`
 * `[--audit-values] [--agent-registry INDEX] [--help]`: the usage
 * `--help` prints, the options and their parsing; a bad one is
 * TUTTI_ERR_DAEMON_BAD_ARGUMENT. The limits are described in docs/limits.md.
 */
import { parseArgs } from 'node:util';
import { type CredentialStoreMode, type SandboxMode, TuttiError } from '@tutti/core';
import { resolveHome } from '@tutti/core/client';
import { DEFAULT_LOG_FILE_BYTES } from './daemon-log/log-file.js';
import {
  agentRegistryOf,
  clientMetadataUrlOf,
  countOf,
  credentialStoreOf,
  endpointOf,
  logLevelOf,
  megabytesOf,
  portOf,
  sampleOf,
  sandboxOf,
  wholeOf,
} from './tuttid-values.js';

/** What `tuttid --help` prints. */
export const TUTTID_USAGE = `Usage: tuttid [options]
       tuttid status [--home DIR] [--json]
       tuttid dashboard [--home DIR] [--json]

Runs the tutti connector daemon on one tutti home until SIGTERM or SIGINT (Ctrl-C). It
serves every installed connector's tools from one loopback MCP server, "connector", and
its control API on 127.0.0.1. One daemon runs per home.

Commands (they ask the daemon running for the home; \`tuttid <command> --help\`):
  status                      each connector's status, why it does not work and its
                              server's last stderr lines; each agent session's status
  dashboard                   a new one-time login link of the dashboard

Options:
  --home DIR                  tutti home (default: $TUTTI_HOME, else ~/.tutti)
  --no-demo                   on an empty home, install no demo connectors (by default
                              it installs "notes", an MCP server, and "hello", a CLI)
  --json                      print JSON lines (ready, then settled) instead of the
                              banner; logs at info
  --log-level LEVEL           trace, debug, info, warn, error, fatal or silent, for
                              the log file and stderr (default: info in the file;
                              warn on stderr, info with --json)
  --log-file-size BYTES       rotate <home>/logs/tuttid.log at this size (default 10 MiB)
  --log-file-count N          rotated log files kept (default 5)
  --port N                    port of the "connector" MCP server (default: a free one)
  --control-port N            port of the control API (default: a free one)
  --mcp-body-limit BYTES      largest request to the MCP server (default 4 MiB)
  --control-body-limit BYTES  largest request to the control API (default 256 KiB)
  --max-listen-streams N      subscriptions/listen streams per session (default 16)
  --max-argument-depth N      deepest nesting of tools/call arguments (default 64)
  --agent-timeout MS          longest an agent may take to start or answer (default 60000)
  --permission-timeout MS     how long a turn's permission request waits for an answer
                              before it is denied (default 300000)
  --elicitation-timeout MS    how long a connector server's question to the person
                              (elicitation) waits for the agent's answer before it
                              is cancelled (default 600000); docs/mcp-surfaces.md
  --max-parked-calls N        tool calls waiting for a 2026-07-28 agent's answer to
                              a connector server's question, at once (default 64)
  --max-parked-calls-per-session N
                              the same, per agent session (default 4)
  --max-sessions N            most live agent sessions at once (default 64)
  --park-after N              failed starts in a row after which a connector
                              stops retrying until told (default 5)
  --max-release-mb N          largest installed release, in MiB (default 256)
  --credential-store STORE    where connector secrets are kept: keychain (the OS
                              keychain), file (0600 files in <home>/credentials) or
                              auto (the keychain when one answers, else files; the
                              default); docs/credential-store.md
  --oauth-client-metadata-url URL
                              an https URL you publish with this daemon's OAuth
                              client metadata, offered to authorization servers
                              that take client ID metadata documents instead of
                              registering; docs/remote-connectors.md
  --sandbox MODE              isolation of connector servers: auto (isolated when
                              bubblewrap works here, else run as they are and say
                              so; the default), required (never start a server it
                              cannot isolate) or off; docs/sandbox.md
  --otlp-endpoint URL         export traces of tool calls and turns over OTLP/HTTP
                              to this collector (its base URL; /v1/traces is added).
                              Default: $OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, else
                              $OTEL_EXPORTER_OTLP_ENDPOINT, else no tracing;
                              docs/tracing.md
  --trace-baggage             pass an agent's W3C baggage on to connector servers
                              (off by default: baggage may carry user data)
  --no-audit                  keep no audit trail of tool calls in <home>/audit
  --audit-values              also keep tool call argument and result values in the
                              audit trail, secrets redacted (off by default);
                              docs/audit.md
  --agent-registry INDEX      an ACP agent registry index (registry.json: a file
                              path, or an https URL) where POST /v1/agents/install
                              {"id"} looks agents up; docs/installing-agents.md
  -h, --help                  print this help and exit

Once ready it writes <home>/run/daemon.json (control URL and token, mode 0600).
It logs JSON lines to <home>/logs/tuttid.log (mode 0600) and short lines to stderr.
Discover the connectors with \`tutti connector available\`; install one through the
control API: POST /v1/connectors/install {"path": "<release folder>"}
(docs/control-api.md). Day to day: docs/running-the-daemon.md. Limits: docs/limits.md.
`;

/** The options `tuttid` takes, as `node:util` parseArgs reads them. */
export const TUTTID_OPTIONS = {
  home: { type: 'string' },
  port: { type: 'string' },
  'control-port': { type: 'string' },
  json: { type: 'boolean', default: false },
  'no-demo': { type: 'boolean', default: false },
  'log-level': { type: 'string' },
  'log-file-size': { type: 'string' },
  'log-file-count': { type: 'string' },
  'mcp-body-limit': { type: 'string' },
  'control-body-limit': { type: 'string' },
  'max-listen-streams': { type: 'string' },
  'max-argument-depth': { type: 'string' },
  'agent-timeout': { type: 'string' },
  'permission-timeout': { type: 'string' },
  'elicitation-timeout': { type: 'string' },
  'max-parked-calls': { type: 'string' },
  'max-parked-calls-per-session': { type: 'string' },
  'max-sessions': { type: 'string' },
  'park-after': { type: 'string' },
  'max-release-mb': { type: 'string' },
  'credential-store': { type: 'string' },
  'oauth-client-metadata-url': { type: 'string' },
  sandbox: { type: 'string' },
  'otlp-endpoint': { type: 'string' },
  'trace-baggage': { type: 'boolean', default: false },
  'no-audit': { type: 'boolean', default: false },
  'audit-values': { type: 'boolean', default: false },
  'agent-registry': { type: 'string' },
  help: { type: 'boolean', short: 'h', default: false },
} as const;

/** Parsed command line. */
export interface TuttidArgs {
  /** `--help`: print {@link TUTTID_USAGE} and exit. */
  help: boolean;
  home: string;
  port: number;
  controlPort: number;
  json: boolean;
  demo: boolean;
  /** `--log-level`; absent: info in the log file, warn on stderr (info with `--json`). */
  logLevel?: string;
  /** The log file's rotation: its largest size in bytes and the rotated files kept. */
  logFile: { maxBytes: number; maxFiles: number };
  /** The caps given on the command line; absent ones keep the daemon's defaults. */
  limits: {
    mcpBodyLimit?: number;
    controlBodyLimit?: number;
    maxListenStreamsPerToken?: number;
    maxArgumentDepth?: number;
    /** Longest an agent may take to start a session or answer one request, in ms. */
    agentTimeoutMs?: number;
    /** How long a turn's permission request waits for an answer, in ms. */
    permissionTimeoutMs?: number;
    /** How long an upstream's elicitation waits for the agent's answer, in ms. */
    elicitationTimeoutMs?: number;
    /** Most calls parked on an `input_required` answer, in all and per session token. */
    maxParkedCalls?: number;
    maxParkedCallsPerToken?: number;
    /** Most agent sessions held at once. */
    maxSessions?: number;
    /** Failures in a row after which a connector parks until told. */
    parkAfter?: number;
  };
  /** Cap on the files of one installed release, in MiB (default: the store's, 256). */
  maxReleaseMb?: number;
  /** `--credential-store`: where connector secrets are kept (default `auto`). */
  credentialStore: CredentialStoreMode;
  /** `--oauth-client-metadata-url`: this daemon's client ID metadata document, if published. */
  oauthClientMetadataUrl?: string;
  /** `--sandbox`: isolation of connector servers (default `auto`). */
  sandbox: SandboxMode;
  /**
   * Where traces go (`--otlp-endpoint`, else the OTEL variables), whether baggage passes, and
   * the share of new traces recorded (`OTEL_TRACES_SAMPLER=parentbased_traceidratio`).
   */
  tracing: { endpoint?: string; baggage: boolean; sampleRatio?: number };
  /** `--no-audit`, `--audit-values`. */
  audit: { enabled: boolean; captureValues: boolean };
  /** `--agent-registry`: the registry index's absolute path or URL, if given. */
  agentRegistry?: string;
}

/** Parses `argv` (without node and the script). */
export function parseTuttidArgs(argv: readonly string[], env = process.env): TuttidArgs {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: [...argv],
      options: TUTTID_OPTIONS,
      strict: true,
      allowPositionals: false,
    }));
  } catch (error) {
    throw new TuttiError('TUTTI_ERR_DAEMON_BAD_ARGUMENT', { problem: (error as Error).message });
  }
  return {
    help: values.help === true,
    home: resolveHome({ flag: values.home as string | undefined, env }),
    port: portOf(values.port as string | undefined, '--port'),
    controlPort: portOf(values['control-port'] as string | undefined, '--control-port'),
    json: values.json === true,
    demo: values['no-demo'] !== true,
    ...(values['log-level'] !== undefined && {
      logLevel: logLevelOf(values['log-level'] as string),
    }),
    logFile: {
      maxBytes:
        countOf(values['log-file-size'] as string | undefined, '--log-file-size') ??
        DEFAULT_LOG_FILE_BYTES,
      maxFiles: wholeOf(values['log-file-count'] as string | undefined, '--log-file-count'),
    },
    limits: {
      mcpBodyLimit: countOf(values['mcp-body-limit'] as string | undefined, '--mcp-body-limit'),
      controlBodyLimit: countOf(
        values['control-body-limit'] as string | undefined,
        '--control-body-limit',
      ),
      maxListenStreamsPerToken: countOf(
        values['max-listen-streams'] as string | undefined,
        '--max-listen-streams',
      ),
      maxArgumentDepth: countOf(
        values['max-argument-depth'] as string | undefined,
        '--max-argument-depth',
      ),
      agentTimeoutMs: countOf(values['agent-timeout'] as string | undefined, '--agent-timeout'),
      permissionTimeoutMs: countOf(
        values['permission-timeout'] as string | undefined,
        '--permission-timeout',
      ),
      elicitationTimeoutMs: countOf(
        values['elicitation-timeout'] as string | undefined,
        '--elicitation-timeout',
      ),
      maxParkedCalls: countOf(
        values['max-parked-calls'] as string | undefined,
        '--max-parked-calls',
      ),
      maxParkedCallsPerToken: countOf(
        values['max-parked-calls-per-session'] as string | undefined,
        '--max-parked-calls-per-session',
      ),
      maxSessions: countOf(values['max-sessions'] as string | undefined, '--max-sessions'),
      parkAfter: countOf(values['park-after'] as string | undefined, '--park-after'),
    },
    ...(values['max-release-mb'] !== undefined && {
      maxReleaseMb: megabytesOf(values['max-release-mb'] as string),
    }),
    credentialStore: credentialStoreOf(values['credential-store'] as string | undefined),
    ...clientMetadataUrlOf(values['oauth-client-metadata-url'] as string | undefined),
    sandbox: sandboxOf(values.sandbox as string | undefined),
    tracing: {
      ...endpointOf(values['otlp-endpoint'] as string | undefined, env),
      baggage: values['trace-baggage'] === true,
      ...sampleOf(env),
    },
    audit: { enabled: values['no-audit'] !== true, captureValues: values['audit-values'] === true },
    ...agentRegistryOf(values['agent-registry'] as string | undefined),
  };
}
