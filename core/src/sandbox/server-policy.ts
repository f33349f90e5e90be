/**
 * The policy one connector's stdio server runs under: the system folders every program
 * needs (read-only), the runtime its command names, its release (read-only), its state and
 * temp folders (read-write), the home paths its manifest declares minus the protected
 * ones, the npm cache of an `npx` server, its network and its limits (docs/sandbox.md).
 */
import { existsSync, lstatSync, readlinkSync, realpathSync, statSync } from 'node:fs';
import { basename, delimiter, dirname, isAbsolute, join, relative } from 'node:path';
import {
  holdsProtectedHomePath,
  isProtectedHomePath,
  PROTECTED_HOME_PATHS,
  type SandboxDeclaration,
} from '../manifest/index.js';
import { CA_PATH_VARIABLES } from './server-env.js';
import type { SandboxBind, SandboxHide, SandboxPolicy } from './types.js';

/** Limits of a server whose manifest names none. */
export const DEFAULT_SANDBOX_LIMITS = Object.freeze({ memoryMiB: 2048, processes: 512 });
/** The daemon's cap on what a manifest may ask for. */
export const SANDBOX_LIMIT_CAPS = Object.freeze({ memoryMiB: 8192, processes: 1024 });

/** System folders every isolated program sees, read-only (those that exist). */
const SYSTEM_FOLDERS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/opt'];

/**
 * Entries of /etc an isolated program sees (name resolution, certificates, users, time
 * zone, the dynamic linker, Debian's alternatives): never /etc as a whole, which holds
 * the host's keys and shadow file.
 */
const ETC_ENTRIES = [
  'alternatives',
  'ca-certificates',
  'ca-certificates.conf',
  'ssl',
  'pki',
  'crypto-policies',
  'resolv.conf',
  'hosts',
  'host.conf',
  'gai.conf',
  'nsswitch.conf',
  'services',
  'protocols',
  'passwd',
  'group',
  'localtime',
  'timezone',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'os-release',
  'mime.types',
];

/** Folders of private keys inside the /etc entries above. */
const ETC_PRIVATE = ['/etc/ssl/private', '/etc/pki/tls/private'];

/** What a policy is made from. */
export interface ServerPolicyInput {
  /** The resolved command (a PATH name or an absolute path). */
  readonly command: string;
  readonly releaseDir: string;
  readonly stateDir: string;
  /** The private temp folder (its `TMPDIR`). */
  readonly tempDir: string;
  /** The manifest's `mcp.sandbox`, when declared. */
  readonly declared: SandboxDeclaration | undefined;
  /** The daemon's environment (PATH, the npm cache, CA files). */
  readonly daemonEnv: NodeJS.ProcessEnv;
  /** The user's home folder. */
  readonly userHome: string;
  /** The daemon's home: never given, whatever is declared. */
  readonly daemonHome: string;
}

/** A policy, and the paths a declaration asked for that were refused (and why). */
export interface ServerPolicy {
  readonly policy: SandboxPolicy;
  /** Extra environment of how it is launched (the npm cache of an `npx` server). */
  readonly launcherEnv: Readonly<Record<string, string>>;
  readonly refused: readonly { readonly path: string; readonly reason: string }[];
}

function inside(path: string, folder: string): boolean {
  const rel = relative(folder, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

function realpathOr(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

/** The system folders: a symlinked one (`/bin -> usr/bin`) is bound at its own path. */
function systemBinds(): SandboxBind[] {
  const binds: SandboxBind[] = [];
  for (const folder of SYSTEM_FOLDERS) {
    if (!existsSync(folder)) continue;
    binds.push({ kind: 'bind', source: folder, target: folder, writable: false });
  }
  for (const entry of ETC_ENTRIES) {
    const path = join('/etc', entry);
    if (existsSync(path)) binds.push({ kind: 'bind', source: path, target: path, writable: false });
  }
  return binds;
}

/** Private keys among the /etc entries (readable to a daemon run as root): hidden. */
function systemHides(): SandboxHide[] {
  return ETC_PRIVATE.filter((path) => existsSync(path)).map((path) => ({
    kind: 'hide',
    path,
    folder: statSync(path).isDirectory(),
  }));
}

/** Symlinks among the system folders (merged /usr): kept as symlinks inside. */
export function systemSymlinks(): { path: string; target: string }[] {
  const links: { path: string; target: string }[] = [];
  for (const folder of SYSTEM_FOLDERS) {
    try {
      if (lstatSync(folder).isSymbolicLink())
        links.push({ path: folder, target: readlinkSync(folder) });
    } catch {
      // absent
    }
  }
  return links;
}

/** The absolute file `command` runs, looked up on `path` when it is a bare name. */
export function findOnPath(command: string, path: string | undefined): string | undefined {
  if (isAbsolute(command)) return existsSync(command) ? command : undefined;
  for (const folder of (path ?? '').split(delimiter)) {
    if (!folder) continue;
    const candidate = join(folder, command);
    try {
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/**
 * The paths never given, as they really are: the user's and the daemon's homes resolved,
 * and the real paths of the protected paths that exist (one may be a symlink into a
 * folder a server is given) and of the daemon's home.
 */
interface Guarded {
  readonly userHome: string;
  readonly daemonHome: string;
  readonly reals: readonly string[];
}

function guarded(input: ServerPolicyInput): Guarded {
  const userHome = realpathOr(input.userHome) ?? input.userHome;
  const daemonHome = realpathOr(input.daemonHome) ?? input.daemonHome;
  const reals = new Set([daemonHome]);
  for (const path of PROTECTED_HOME_PATHS) {
    const real = realpathOr(join(input.userHome, path));
    if (real !== undefined) reals.add(real);
  }
  return { userHome, daemonHome, reals: [...reals] };
}

/** Why real path `real` is never given (declared, or a runtime's folder), if it is not. */
function withheld(real: string, guard: Guarded): string | undefined {
  if (real === guard.userHome) return 'it is the whole home';
  if (inside(guard.userHome, real)) return 'it holds the whole home';
  if (inside(real, guard.daemonHome)) return "it is inside the daemon's home";
  if (
    (inside(real, guard.userHome) && isProtectedHomePath(relative(guard.userHome, real))) ||
    guard.reals.some((path) => inside(real, path))
  ) {
    return 'it resolves to a folder that holds keys, credentials or browser data';
  }
  return undefined;
}

/** Why `real` (a resolved declared path) may not be given, if it may not. */
function refusal(real: string, guard: Guarded, writable: boolean): string | undefined {
  const why = withheld(real, guard);
  if (why) return why;
  if (!inside(real, guard.userHome)) return 'it resolves to a place outside the home';
  // Writable, it could make a protected file (a token another program then trusts).
  const holds =
    holdsProtectedHomePath(relative(guard.userHome, real)) ||
    guard.reals.some((path) => path !== real && inside(path, real));
  if (writable && holds) {
    return "it holds a folder of keys, credentials or browser data, or the daemon's home: declare the folder below it the server writes to";
  }
  return undefined;
}

/**
 * Protected paths (and the daemon's home) strictly inside real folder `real`, to hide
 * where the server sees them: under `target`, where `real` is bound.
 */
function hiddenInside(real: string, target: string, guard: Guarded): SandboxHide[] {
  const hidden: SandboxHide[] = [];
  for (const path of guard.reals) {
    if (path === real || !inside(path, real)) continue;
    try {
      const folder = statSync(path).isDirectory();
      hidden.push({ kind: 'hide', path: join(target, relative(real, path)), folder });
    } catch {
      // absent: nothing to hide
    }
  }
  return hidden;
}

/** The install folder of a file in `<prefix>/bin/`, else its own folder. */
function prefixOf(file: string): string {
  const bin = dirname(file);
  return basename(bin) === 'bin' ? dirname(bin) : bin;
}

/**
 * The installs of the command and of `node` when they live outside the system folders (a
 * node under ~/.nvm; /usr/local is inside /usr): the folder above the `bin` each is found
 * in, and above the file it resolves to (nvm's `npx` is a link into npm's package), so a
 * script's `#!/usr/bin/env node` finds the same node inside. Where that folder is never
 * given (a command in ~/bin: the folder above is the home), the `bin` alone, or nothing;
 * protected paths inside what is bound are hidden.
 */
function runtimeBinds(
  input: ServerPolicyInput,
  guard: Guarded,
): { binds: SandboxBind[]; hidden: SandboxHide[] } {
  const folders = new Set<string>();
  for (const name of new Set([input.command, 'node'])) {
    const found = findOnPath(name, input.daemonEnv.PATH);
    if (!found) continue;
    for (const file of new Set([found, realpathOr(found) ?? found])) {
      const real = realpathOr(dirname(file)) ?? dirname(file);
      if (SYSTEM_FOLDERS.some((folder) => inside(real, folder))) continue;
      const prefix = realpathOr(prefixOf(file)) ?? prefixOf(file);
      const folder = [prefix, real].find((candidate) => withheld(candidate, guard) === undefined);
      if (folder !== undefined) folders.add(folder);
    }
  }
  const binds: SandboxBind[] = [];
  const hidden: SandboxHide[] = [];
  for (const folder of folders) {
    if ([...folders].some((other) => other !== folder && inside(folder, other))) continue;
    binds.push({ kind: 'bind', source: folder, target: folder, writable: false });
    hidden.push(...hiddenInside(folder, folder, guard));
  }
  return { binds, hidden };
}

/**
 * The npm settings an isolated `npx` or `npm` server gets (its cache, no update check, no
 * funding line); empty for another command.
 */
export function npmLauncherEnv(
  command: string,
  daemonEnv: NodeJS.ProcessEnv,
  userHome: string,
): Record<string, string> {
  const name = basename(command);
  if (name !== 'npx' && name !== 'npm') return {};
  const cache = daemonEnv.npm_config_cache ?? join(userHome, '.npm');
  return { npm_config_cache: cache, npm_config_update_notifier: 'false', npm_config_fund: 'false' };
}

/** The npm cache of an `npx`/`npm` server: the shared content cache, and a private `_npx`. */
function npmBinds(input: ServerPolicyInput): { binds: SandboxBind[]; env: Record<string, string> } {
  const env = npmLauncherEnv(input.command, input.daemonEnv, input.userHome);
  const cache = env.npm_config_cache;
  if (cache === undefined) return { binds: [], env: {} };
  return {
    binds: [
      {
        kind: 'bind',
        source: join(cache, '_cacache'),
        target: join(cache, '_cacache'),
        writable: true,
        optional: true,
      },
      {
        kind: 'bind',
        source: join(input.stateDir, '.npx'),
        target: join(cache, '_npx'),
        writable: true,
      },
    ],
    env,
  };
}

/**
 * The policy of one server. Declared home paths are resolved (a symlink to a protected
 * folder is refused like the folder) and bound after the system; protected paths inside
 * them are hidden; the release, state and temp folders are bound last, over everything.
 */
export function serverPolicy(input: ServerPolicyInput): ServerPolicy {
  const declared = input.declared;
  const guard = guarded(input);
  const runtime = runtimeBinds(input, guard);
  const mounts: (SandboxBind | SandboxHide)[] = [
    ...systemBinds(),
    ...systemHides(),
    ...runtime.binds,
  ];
  const refused: { path: string; reason: string }[] = [];
  const hidden: SandboxHide[] = [...runtime.hidden];
  const home = (writable: boolean) => (path: string) => {
    const absolute = join(input.userHome, path.slice(2));
    const real = realpathOr(absolute);
    if (real === undefined) return; // absent: nothing to give
    const why = refusal(real, guard, writable);
    if (why) {
      refused.push({ path, reason: why });
      return;
    }
    mounts.push({ kind: 'bind', source: real, target: absolute, writable });
    hidden.push(...hiddenInside(real, absolute, guard));
  };
  declared?.filesystem.read.forEach(home(false));
  declared?.filesystem.write.forEach(home(true));
  // After every declared folder and the runtime's, so a hidden path stays hidden whichever
  // folder holds it.
  mounts.push(...hidden);
  const network = declared?.network ?? 'host';
  if (network === 'host') {
    for (const name of CA_PATH_VARIABLES) {
      const value = input.daemonEnv[name];
      if (!value || !isAbsolute(value)) continue;
      const real = realpathOr(value);
      if (real && !inside(real, guard.userHome)) {
        mounts.push({ kind: 'bind', source: real, target: value, writable: false, optional: true });
      }
    }
  }
  const npm = npmBinds(input);
  mounts.push(...npm.binds);
  // Its own folders last: over a hidden daemon home they lie in.
  mounts.push({
    kind: 'bind',
    source: input.releaseDir,
    target: input.releaseDir,
    writable: false,
  });
  mounts.push({ kind: 'bind', source: input.stateDir, target: input.stateDir, writable: true });
  mounts.push({ kind: 'bind', source: input.tempDir, target: input.tempDir, writable: true });
  const { memoryMiB, processes } = effectiveLimits(declared);
  return {
    policy: { mounts, network, limits: { memoryBytes: memoryMiB * 1024 * 1024, processes } },
    launcherEnv: npm.env,
    refused,
  };
}

/** The limits a declaration gets, within the daemon's cap, in MiB and processes. */
export function effectiveLimits(declared: SandboxDeclaration | undefined): {
  memoryMiB: number;
  processes: number;
} {
  const limits = declared?.limits ?? {};
  return {
    memoryMiB: Math.min(
      limits.memoryMiB ?? DEFAULT_SANDBOX_LIMITS.memoryMiB,
      SANDBOX_LIMIT_CAPS.memoryMiB,
    ),
    processes: Math.min(
      limits.processes ?? DEFAULT_SANDBOX_LIMITS.processes,
      SANDBOX_LIMIT_CAPS.processes,
    ),
  };
}
