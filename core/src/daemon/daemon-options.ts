/** The options of `startDaemon` (daemon.ts): where it runs, its ports, limits and settings. */
import type { Logger } from 'pino';
import type { CredentialStoreMode } from '../credentials/select-vault.js';
import type { EntryMode } from '../plugins/index.js';
import type { BackoffOptions } from '../runtime/index.js';
import type { SandboxMode } from '../sandbox/index.js';
import type { ReleaseLimits } from '../store/index.js';
import type { TracingOptions } from '../telemetry/index.js';
import type { DaemonAuditOptions } from './daemon-observe.js';

/** Options of `startDaemon`. */
export interface DaemonOptions {
  /** The tutti home (absolute). */
  readonly home: string;
  /** Port of the loopback `connector` MCP server (default 0: a free port). */
  readonly port?: number;
  /** Port of the control API (default 0: a free port). */
  readonly controlPort?: number;
  readonly logger?: Logger;
  /** Release folders installed when the home has never held a connector. */
  readonly demoConnectors?: readonly string[];
  /** Repository root whose `providers/*` and `plugins/*` are discovered. */
  readonly repoRoot?: string;
  /** node_modules folders scanned for installed plugin packages. */
  readonly nodeModules?: readonly string[];
  /** Load plugins from TS sources (tests) or built JS (default: as this file runs). */
  readonly pluginMode?: EntryMode;
  /** Start bound in ms of a connector whose manifest names none (default 30 s). */
  readonly startTimeoutMs?: number;
  /** Keep-alive interval of `subscriptions/listen` streams (default 15 s). */
  readonly keepAliveMs?: number;
  /** Largest request body of the `connector` server in bytes (default 4 MiB). */
  readonly mcpBodyLimit?: number;
  /** Largest request body of the control API in bytes (default 256 KiB). */
  readonly controlBodyLimit?: number;
  /** Most `subscriptions/listen` streams one session token holds at once (default 16). */
  readonly maxListenStreamsPerToken?: number;
  /** Deepest nesting accepted in `tools/call` arguments (default 64). */
  readonly maxArgumentDepth?: number;
  /** Restart delays of a crashed upstream (default 500 ms doubling up to 30 s). */
  readonly backoff?: BackoffOptions;
  /** Longest an agent may take to start a session or answer one request (default 60 s). */
  readonly agentTimeoutMs?: number;
  /** Most agent sessions the daemon holds at once, daemon- and host-driven (default 64). */
  readonly maxSessions?: number;
  /** Failures in a row after which a connector parks until told (default 5). */
  readonly parkAfter?: number;
  /** How long a turn's permission request waits for an answer before it is denied (default 5 min). */
  readonly permissionTimeoutMs?: number;
  /**
   * How long an upstream's elicitation waits for the agent's answer before it is cancelled,
   * on either surface (default 10 min).
   */
  readonly elicitationTimeoutMs?: number;
  /** Most calls parked on a 2026-07-28 `input_required` answer at once (default 64). */
  readonly maxParkedCalls?: number;
  /** The same, per session token (default 4). */
  readonly maxParkedCallsPerToken?: number;
  /**
   * File path or URL of an ACP agent registry index (`registry.json`), where
   * `POST /v1/agents/install {"id"}` looks agents up (`tuttid --agent-registry`).
   */
  readonly agentRegistry?: string;
  /** Caps on one installed release (default 256 MiB of files, 100,000 entries). */
  readonly releaseLimits?: Partial<ReleaseLimits>;
  /**
   * Where connector secrets are kept (docs/credential-store.md). Default `file`, so a
   * daemon started in-process (tests) never writes to the user's keychain; `tuttid`
   * passes its `--credential-store` (default `auto`).
   */
  readonly credentialStore?: CredentialStoreMode;
  /** A client ID metadata document's https URL, offered to authorization servers (docs/remote-connectors.md). */
  readonly oauthClientMetadataUrl?: string;
  /**
   * Isolation of connector stdio servers (docs/sandbox.md). Default `off`, so a daemon
   * started in-process (tests) runs fixture servers from anywhere; `tuttid` passes its
   * `--sandbox` (default `auto`).
   */
  readonly sandbox?: SandboxMode;
  /**
   * Traces of tool calls and turns (docs/tracing.md): exported over OTLP/HTTP only when an
   * endpoint is given (`tuttid` takes it from `--otlp-endpoint` or the standard
   * `OTEL_EXPORTER_OTLP_*` variables); without one no exporter code is loaded.
   */
  readonly tracing?: TracingOptions;
  /**
   * The audit trail of tool calls in `<home>/audit/` (docs/audit.md): on unless `enabled`
   * is false; `captureValues` also keeps argument and result values, secrets redacted.
   */
  readonly audit?: DaemonAuditOptions;
}
