/**
 * Turns an installed connector and its credential into a running upstream MCP client.
 * The credential reaches only the upstream process (as its env var) or the upstream's
 * requests (as a header). Of the daemon's own environment a stdio upstream gets only the
 * proxy, CA, locale and temp-folder settings (plus PATH and HOME), under its manifest's env;
 * a remote one is reached through the proxy those settings name.
 */
import { basename } from 'node:path';
import type { UpstreamTool } from '../contracts/index.js';
import { TuttiError } from '../errors/index.js';
import type { TransportAuth } from '../oauth/types.js';
import { type ProcessSupervisor, upstreamInheritedEnv } from '../process/index.js';
import type { ConnectorSandbox } from '../sandbox/index.js';
import type { Credential, InstalledConnector } from '../store/index.js';
import {
  openHttpUpstream,
  openStdioUpstream,
  proxyFetch,
  type UpstreamConnection,
  type UpstreamExitInfo,
  type UpstreamLogger,
} from '../upstream/index.js';

/** Callbacks and limits of one upstream launch. */
export interface UpstreamLaunchOptions {
  supervisor?: ProcessSupervisor;
  /** Start bound of a connector whose manifest names none (`mcp.startTimeoutMs`). */
  startTimeoutMs?: number;
  /** Calls the start off: it rejects with TUTTI_ERR_UPSTREAM_START_ABANDONED. */
  signal?: AbortSignal;
  /** Given the reader of a stdio server's stderr tail as its start begins. */
  onStderr?: (read: () => string) => void;
  logger?: UpstreamLogger;
  onToolsChanged(tools: UpstreamTool[]): void;
  onExit(info: UpstreamExitInfo): void;
  /** The sign-in that authorizes a remote server's requests (its tokens never leave the daemon). */
  auth?: TransportAuth;
  /**
   * The daemon's isolation of stdio servers (docs/sandbox.md): their state folder, their
   * environment and their sandbox. Without it a stdio server runs in its release folder
   * with the daemon's proxy, CA, locale and temp settings (runtimes in tests).
   */
  sandbox?: ConnectorSandbox;
}

/** Starts upstream MCP clients; injectable so tests can stand in for processes. */
export type UpstreamLauncher = (
  connector: InstalledConnector,
  credential: Credential | undefined,
  options: UpstreamLaunchOptions,
) => Promise<UpstreamConnection>;

/** The environment entries that carry `credential` to a stdio server or CLI, if any. */
export function credentialEnv(
  connector: InstalledConnector,
  credential: Credential | undefined,
): Record<string, string> {
  const auth = connector.manifest.auth;
  if (!credential || auth.kind === 'none' || !auth.env) return {};
  return { [auth.env]: credential.secret.reveal() };
}

/** The request headers that carry `credential` to a remote MCP server, if any. */
export function credentialHeaders(
  connector: InstalledConnector,
  credential: Credential | undefined,
): Record<string, string> {
  const auth = connector.manifest.auth;
  if (!credential || auth.kind === 'none') return {};
  if (auth.kind === 'oauth2') return { Authorization: `Bearer ${credential.secret.reveal()}` };
  if (!auth.header) return {};
  return { [auth.header]: `${auth.prefix ?? ''}${credential.secret.reveal()}` };
}

/** What a crash of a server that wrote into its read-only release adds to its reason. */
const WROTE_RELEASE =
  'it tried to write inside its read-only release folder: have it write to its state folder ($TUTTI_CONNECTOR_STATE_DIR)';

/** True when `stderr` reports a write refused (EROFS) and names `releaseDir`. */
export function wroteInRelease(stderr: string, releaseDir: string): boolean {
  if (!stderr.includes(releaseDir)) return false;
  return /EROFS|read-only file system/i.test(stderr);
}

/**
 * The default launcher: a managed stdio process in its own group, or a Streamable HTTP
 * client. Throws when the connector has no MCP server.
 */
export const launchUpstream: UpstreamLauncher = async (connector, credential, options) => {
  const mcp = connector.paths.mcp;
  if (!mcp) throw new Error(`connector ${connector.key} has no MCP server`);
  const common = {
    // The manifest's own bound wins over the daemon's default.
    startTimeoutMs: connector.manifest.mcp?.startTimeoutMs ?? options.startTimeoutMs,
    serializeCalls: connector.manifest.mcp?.serializeCalls === true,
    signal: options.signal,
    onStderr: options.onStderr,
    logger: options.logger,
    onToolsChanged: options.onToolsChanged,
    onExit: options.onExit,
  };
  if (mcp.transport === 'stdio') {
    if (!options.sandbox) {
      return openStdioUpstream({
        ...common,
        command: mcp.command,
        args: mcp.args,
        env: { ...upstreamInheritedEnv(), ...mcp.env, ...credentialEnv(connector, credential) },
        cwd: connector.releaseDir,
        supervisor: options.supervisor,
      });
    }
    const server = await options.sandbox.prepare(connector, credentialEnv(connector, credential));
    let stderr: () => string = () => '';
    try {
      return await openStdioUpstream({
        ...common,
        ...server.launch,
        target: basename(mcp.command),
        supervisor: options.supervisor,
        onStderr: (read) => {
          stderr = read;
          options.onStderr?.(read);
        },
        onExit: (info) => {
          const wrote = wroteInRelease(info.stderrTail ?? '', connector.releaseDir);
          options.onExit(wrote ? { ...info, reason: `${info.reason}; ${WROTE_RELEASE}` } : info);
        },
        onGone: () => void server.release(),
      });
    } catch (error) {
      if (wroteInRelease(stderr(), connector.releaseDir)) {
        throw new TuttiError(
          'TUTTI_ERR_UPSTREAM_WROTE_RELEASE',
          { key: connector.key },
          { cause: error },
        );
      }
      throw error;
    }
  }
  const fetch = proxyFetch();
  return openHttpUpstream({
    ...common,
    url: mcp.url,
    headers: credentialHeaders(connector, credential),
    protocol: mcp.protocol ?? 'auto',
    ...(fetch && { fetch }),
    ...(options.auth && { auth: options.auth }),
  });
};
