/**
 * The daemon's isolation of connector stdio servers (docs/sandbox.md): the `--sandbox`
 * setting, the platform probed once at start, each server's private state and temp
 * folders, the launch of a server (isolated, or as before where isolation is off or does
 * not work), and what status shows of it.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { TuttiError } from '../errors/index.js';
import type { InstalledConnector } from '../store/index.js';
import { bubblewrapPlatform } from './bubblewrap.js';
import { effectiveLimits, npmLauncherEnv, serverPolicy } from './server-policy.js';
import { expandStateDir, isolatedServerEnv, plainServerEnv } from './server-env.js';
import type { ConnectorSandboxView, ProcessLaunch, SandboxMode, SandboxPlatform } from './types.js';

/** Logger subset the sandbox writes its one line about isolation to. */
export interface SandboxLogger {
  info(object: object, message?: string): void;
  warn(object: object, message?: string): void;
}

/** Options of {@link openConnectorSandbox}. */
export interface ConnectorSandboxOptions {
  readonly mode: SandboxMode;
  /** The daemon's home: state folders live in it, and it is never given to a server. */
  readonly home: string;
  /** The platform part (default: bubblewrap, on Linux). */
  readonly platform?: SandboxPlatform;
  /** The daemon's environment (default: `process.env`). */
  readonly env?: NodeJS.ProcessEnv;
  /** The user's home (default: `os.homedir()`). */
  readonly userHome?: string;
  readonly logger?: SandboxLogger;
}

/** A server ready to spawn, and the removal of its temp folder once it is gone. */
export interface PreparedServer {
  readonly launch: ProcessLaunch;
  /** True when it runs isolated. */
  readonly isolated: boolean;
  /** Removes its temp folder; call once its process is gone. */
  release(): Promise<void>;
}

/** The daemon's isolation of connector servers. */
export interface ConnectorSandbox {
  readonly mode: SandboxMode;
  /** The platform that isolates servers, when one does. */
  readonly platform: string | undefined;
  /** Why servers are not isolated although the mode asks for it, when they are not. */
  readonly unavailable: string | undefined;
  /** The private state folder of `key` (kept across upgrades and restarts). */
  stateDir(key: string): string;
  /** How `connector`'s stdio server runs; undefined when it has none. */
  view(connector: InstalledConnector): ConnectorSandboxView | undefined;
  /**
   * The launch of `connector`'s stdio server with its credential's variable: its state
   * and temp folders made, isolated when the mode and the platform allow.
   * Throws TUTTI_ERR_SANDBOX_UNAVAILABLE under `required` where isolation does not work.
   */
  prepare(
    connector: InstalledConnector,
    credentialEnv: Record<string, string>,
  ): Promise<PreparedServer>;
  /** Removes `key`'s state folder (at uninstall). */
  forget(key: string): Promise<void>;
}

/** The folder of every server's temp folder; emptied at start (the home is locked). */
const TEMP_FOLDER = join('tmp', 'connectors');
/** The folder of every connector's state folder. */
const STATE_FOLDER = 'connector-data';

/**
 * Opens the sandbox: probes the platform once (unless `off`) and logs, once, when servers
 * will run without isolation or not at all.
 * @example const sandbox = await openConnectorSandbox({ mode: 'auto', home, logger });
 */
export async function openConnectorSandbox(
  options: ConnectorSandboxOptions,
): Promise<ConnectorSandbox> {
  const { mode, home } = options;
  const env = options.env ?? process.env;
  const userHome = options.userHome ?? homedir();
  const tempRoot = join(home, TEMP_FOLDER);
  await rm(tempRoot, { recursive: true, force: true });
  let platform: SandboxPlatform | undefined;
  let unavailable: string | undefined;
  if (mode !== 'off') {
    const candidate =
      options.platform ?? bubblewrapPlatform({ path: env.PATH, workDir: join(home, 'tmp') });
    const probe = await candidate.probe();
    if (probe.ok) platform = candidate;
    else unavailable = probe.reason;
    if (probe.ok && probe.warning) {
      options.logger?.warn(
        { sandbox: mode },
        `connector servers run isolated, but ${probe.warning}`,
      );
    }
  }
  if (unavailable && mode === 'auto') {
    options.logger?.warn(
      { sandbox: mode, reason: unavailable },
      `connector servers run without isolation: ${unavailable}`,
    );
  } else if (unavailable) {
    options.logger?.warn(
      { sandbox: mode, reason: unavailable },
      `no connector server will start (--sandbox required): ${unavailable}`,
    );
  } else if (platform) {
    options.logger?.info(
      { sandbox: mode, platform: platform.name },
      'connector servers run isolated',
    );
  }
  const stateDir = (key: string) => join(home, STATE_FOLDER, key);
  /** The declared home paths each release's last isolated start did not give, by digest. */
  const refusals = new Map<string, readonly { path: string; reason: string }[]>();
  const isolation = (): ConnectorSandboxView['isolation'] => {
    if (mode === 'off') return 'off';
    if (platform) return 'isolated';
    return mode === 'required' ? 'refused' : 'not-isolated';
  };

  const envOf = (
    connector: InstalledConnector,
    credentialEnv: Record<string, string>,
    tempDir: string,
    launcherEnv: Record<string, string> = {},
  ) => {
    const mcp = connector.paths.mcp;
    if (mcp?.transport !== 'stdio')
      throw new Error(`connector ${connector.key} has no stdio server`);
    const input = {
      manifestEnv: mcp.env,
      credentialEnv,
      stateDir: stateDir(connector.key),
      daemonEnv: env,
    };
    if (!platform) return plainServerEnv(input);
    return isolatedServerEnv({
      ...input,
      passed: mcp.sandbox?.env ?? [],
      network: mcp.sandbox?.network ?? 'host',
      tempDir,
      launcherEnv,
    });
  };

  return {
    mode,
    platform: platform?.name,
    unavailable,
    stateDir,
    view(connector) {
      const mcp = connector.paths.mcp;
      if (mcp?.transport !== 'stdio') return undefined;
      const auth = connector.manifest.auth;
      const credential = auth.kind !== 'none' && auth.env ? { [auth.env]: '' } : {};
      const launcher = npmLauncherEnv(mcp.command, env, userHome);
      const names = Object.keys(envOf(connector, credential, '', launcher)).sort();
      const refused = refusals.get(connector.digest);
      return {
        isolation: isolation(),
        ...(platform && { platform: platform.name }),
        profile: mcp.sandbox ? 'declared' : 'default',
        network: mcp.sandbox?.network ?? 'host',
        home: {
          read: [...(mcp.sandbox?.filesystem.read ?? [])],
          write: [...(mcp.sandbox?.filesystem.write ?? [])],
          ...(refused && refused.length > 0 && { refused: refused.map((r) => ({ ...r })) }),
        },
        env: names,
        limits: effectiveLimits(mcp.sandbox),
      };
    },
    async prepare(connector, credentialEnv) {
      const mcp = connector.paths.mcp;
      if (mcp?.transport !== 'stdio')
        throw new Error(`connector ${connector.key} has no stdio server`);
      if (mode === 'required' && !platform) {
        throw new TuttiError('TUTTI_ERR_SANDBOX_UNAVAILABLE', {
          key: connector.key,
          reason: unavailable ?? 'no sandbox',
        });
      }
      const state = stateDir(connector.key);
      await mkdir(state, { recursive: true, mode: 0o700 });
      const args = mcp.args.map((arg) => expandStateDir(arg, state));
      if (!platform) {
        const launch = {
          command: mcp.command,
          args,
          env: envOf(connector, credentialEnv, ''),
          cwd: state,
        };
        return { launch, isolated: false, release: async () => {} };
      }
      await mkdir(tempRoot, { recursive: true, mode: 0o700 });
      const temp = await mkdtemp(join(tempRoot, `${connector.key}-`));
      const declared = mcp.sandbox;
      const { policy, launcherEnv, refused } = serverPolicy({
        command: mcp.command,
        releaseDir: connector.releaseDir,
        stateDir: state,
        tempDir: temp,
        declared,
        daemonEnv: env,
        userHome,
        daemonHome: home,
      });
      refusals.set(connector.digest, refused);
      for (const { path, reason } of refused) {
        options.logger?.warn(
          { connector: connector.key, path, reason },
          `connector "${connector.key}" asked for ${path}, which is not given: ${reason}`,
        );
      }
      if (policy.mounts.some((m) => m.kind === 'bind' && m.target.endsWith('/_npx'))) {
        await mkdir(join(state, '.npx'), { recursive: true, mode: 0o700 });
      }
      const launch = platform.wrap(
        {
          command: mcp.command,
          args,
          env: envOf(connector, credentialEnv, temp, launcherEnv),
          cwd: state,
        },
        policy,
      );
      return {
        launch,
        isolated: true,
        release: () => rm(temp, { recursive: true, force: true }),
      };
    },
    async forget(key) {
      await rm(stateDir(key), { recursive: true, force: true });
    },
  };
}
