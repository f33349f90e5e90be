/**
 * The environment and arguments of a connector's stdio server: its state folder named by
 * `TUTTI_CONNECTOR_STATE_DIR` (and expanded where its manifest writes
 * `${TUTTI_CONNECTOR_STATE_DIR}`), and, when it is isolated, nothing of the daemon's
 * environment but a small base, what its manifest names, and its credential.
 */
import {
  CA_VARIABLES,
  isDaemonControlVariable,
  PROXY_VARIABLES,
  upstreamInheritedEnv,
} from '../process/index.js';

/** The variable that names a server's private state folder. */
export const STATE_DIR_VARIABLE = 'TUTTI_CONNECTOR_STATE_DIR';

const STATE_DIR_REFERENCE = /\$\{TUTTI_CONNECTOR_STATE_DIR\}/g;

/** `value` with every `${TUTTI_CONNECTOR_STATE_DIR}` replaced by `stateDir`. */
export function expandStateDir(value: string, stateDir: string): string {
  return value.replace(STATE_DIR_REFERENCE, () => stateDir);
}

/** Variables of the base every isolated server gets from the daemon (besides `LC_*`). */
export const BASE_VARIABLES: readonly string[] = Object.freeze(['PATH', 'LANG', 'LANGUAGE', 'TZ']);

/** Proxy and CA settings an isolated server with the network gets. */
export const NETWORK_VARIABLES: readonly string[] = Object.freeze([
  ...PROXY_VARIABLES,
  ...CA_VARIABLES,
]);

/** Variables whose value is a CA file or folder an isolated server must be able to read. */
export const CA_PATH_VARIABLES: readonly string[] = CA_VARIABLES;

/** What a server's environment is made of. */
export interface ServerEnvInput {
  /** The manifest's `mcp.env` (before expansion). */
  readonly manifestEnv: Readonly<Record<string, string>>;
  /** The credential's variable, when it has one. */
  readonly credentialEnv: Readonly<Record<string, string>>;
  readonly stateDir: string;
  /** The daemon's environment. */
  readonly daemonEnv: NodeJS.ProcessEnv;
}

/** The manifest env with the state folder expanded, then the credential, then the state variable. */
function ownEnv(input: ServerEnvInput): Record<string, string> {
  const expanded: Record<string, string> = {};
  for (const [name, value] of Object.entries(input.manifestEnv)) {
    expanded[name] = expandStateDir(value, input.stateDir);
  }
  return { ...expanded, ...input.credentialEnv, [STATE_DIR_VARIABLE]: input.stateDir };
}

/**
 * The environment of a server that is not isolated: the daemon's proxy, CA, locale and
 * temp settings, PATH and HOME, under its own (today's behaviour, plus the state folder).
 */
export function plainServerEnv(input: ServerEnvInput): Record<string, string> {
  const base: Record<string, string> = {};
  const { PATH: path, HOME: home } = input.daemonEnv;
  if (path !== undefined) base.PATH = path;
  if (home !== undefined) base.HOME = home;
  return { ...base, ...upstreamInheritedEnv(input.daemonEnv), ...ownEnv(input) };
}

/** Options of {@link isolatedServerEnv}. */
export interface IsolatedEnvInput extends ServerEnvInput {
  /** Names its `sandbox.env` passes from the daemon's environment. */
  readonly passed: readonly string[];
  readonly network: 'none' | 'host';
  /** The temp folder as the server sees it. */
  readonly tempDir: string;
  /** Extra settings of how it is launched (the npm cache of an `npx` server). */
  readonly launcherEnv?: Readonly<Record<string, string>>;
}

/**
 * The whole environment of an isolated server: the base (PATH, locale, TZ), the proxy and
 * CA settings when it has the network, the variables its manifest passes, its manifest
 * env, its credential, and its state folder as `HOME` and `TUTTI_CONNECTOR_STATE_DIR`
 * with its temp folder as `TMPDIR`. Nothing else of the daemon's.
 */
export function isolatedServerEnv(input: IsolatedEnvInput): Record<string, string> {
  const env: Record<string, string> = {};
  const from = input.daemonEnv;
  for (const [name, value] of Object.entries(from)) {
    if (value === undefined) continue;
    if (BASE_VARIABLES.includes(name) || name.startsWith('LC_')) env[name] = value;
    else if (input.network === 'host' && NETWORK_VARIABLES.includes(name)) env[name] = value;
  }
  for (const name of input.passed) {
    // The daemon's own settings are never handed on, whatever a manifest asks.
    if (isDaemonControlVariable(name)) continue;
    const value = from[name];
    if (value !== undefined) env[name] = value;
  }
  return {
    ...env,
    HOME: input.stateDir,
    TMPDIR: input.tempDir,
    ...input.launcherEnv,
    ...ownEnv(input),
  };
}
