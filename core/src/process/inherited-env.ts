/**
 * Which of the daemon's own environment variables reach the processes it starts. An agent
 * gets the daemon's environment minus its control variables and the nesting guards other
 * agents leave behind; a connector upstream gets only the network, CA, locale and temp
 * settings (plus what its manifest and credential give it). `docs/architecture.md` lists
 * the rules.
 */
import { realpathSync } from 'node:fs';
import { delimiter, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * Variables set by an agent for the processes it runs, to detect nesting. Handed on, they
 * make an agent started by the daemon believe it runs inside another agent.
 */
export const NESTING_GUARD_VARIABLES: readonly string[] = Object.freeze([
  'CLAUDECODE',
  'CLAUDE_CODE_ENTRYPOINT',
  'CLAUDE_CODE_SSE_PORT',
  'CLAUDE_AGENT_SDK_VERSION',
  'CODEX_SANDBOX',
  'CODEX_SANDBOX_NETWORK_DISABLED',
  'CODEX_THREAD_ID',
  'CODEX_MANAGED_BY_NPM',
  'CODEX_MANAGED_BY_BUN',
  'CODEX_MANAGED_BY_PNPM',
  'CODEX_MANAGED_PACKAGE_ROOT',
  'OPENCODE',
  'OPENCODE_PID',
  'GEMINI_CLI',
  'QWEN_CODE',
]);

/** True for a variable of the daemon's own control (`TUTTI_*`) or of the npm run that started it. */
export function isDaemonControlVariable(name: string): boolean {
  return name.startsWith('TUTTI_') || name.startsWith('npm_') || name === 'INIT_CWD';
}

/** Where this module is installed: the daemon's own install is every folder above it. */
const HERE = realpathOr(fileURLToPath(import.meta.url));

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

/**
 * A PATH without what only the daemon's own install put there: the `node_modules/.bin`
 * folders of the daemon's install and the folders above it (npm adds them to the PATH of
 * `npm start`), and npm's own `node-gyp-bin`. Other entries stay, in order.
 */
export function agentPath(
  path: string | undefined,
  installedAt: string = HERE,
): string | undefined {
  if (path === undefined) return undefined;
  const kept = path.split(delimiter).filter((entry) => {
    if (entry === '') return false;
    if (/[\\/]@npmcli[\\/]run-script[\\/]lib[\\/]node-gyp-bin[\\/]?$/.test(entry)) return false;
    const bin = /^(.*)[\\/]node_modules[\\/]\.bin[\\/]?$/.exec(entry);
    if (!bin) return true;
    const owner = realpathOr(bin[1] || sep);
    return !(
      installedAt === owner || installedAt.startsWith(owner.endsWith(sep) ? owner : owner + sep)
    );
  });
  return kept.join(delimiter);
}

/**
 * The daemon's environment as an agent inherits it: without the daemon's control
 * variables, npm's, the nesting guards, and the daemon's own install on PATH.
 */
export function agentInheritedEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const guards = new Set(NESTING_GUARD_VARIABLES);
  const inherited: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || guards.has(name) || isDaemonControlVariable(name)) continue;
    inherited[name] = name === 'PATH' ? (agentPath(value) ?? value) : value;
  }
  return inherited;
}

/** The proxy settings, in both spellings. */
export const PROXY_VARIABLES: readonly string[] = Object.freeze([
  'HTTP_PROXY',
  'HTTPS_PROXY',
  'ALL_PROXY',
  'NO_PROXY',
  'http_proxy',
  'https_proxy',
  'all_proxy',
  'no_proxy',
]);

/** The settings whose value is a CA file or folder. */
export const CA_VARIABLES: readonly string[] = Object.freeze([
  'SSL_CERT_FILE',
  'SSL_CERT_DIR',
  'NODE_EXTRA_CA_CERTS',
  'REQUESTS_CA_BUNDLE',
  'CURL_CA_BUNDLE',
]);

/** Exact names of the settings a connector upstream inherits (besides `LC_*`). */
const UPSTREAM_SETTINGS = new Set([
  ...PROXY_VARIABLES,
  ...CA_VARIABLES,
  'LANG',
  'LANGUAGE',
  'TZ',
  'TMPDIR',
  'TMP',
  'TEMP',
]);

/** The proxy, CA, locale and temp-folder settings of the daemon, for a connector upstream. */
export function upstreamInheritedEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const inherited: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) continue;
    if (UPSTREAM_SETTINGS.has(name) || name.startsWith('LC_')) inherited[name] = value;
  }
  return inherited;
}
