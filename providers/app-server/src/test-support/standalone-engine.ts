/**
 * An app-server engine outside a session host, for engine tests: the session home written
 * into a folder of its own, the agent spawned through core's agent spawn.
 */
import { join } from 'node:path';
import { type PreparedRuntime, sessionFiles } from '@tutti/core';
import { spawnAgent } from '@tutti/core/internal';
import { AppServerEngine } from '../app-server-engine.js';
import type { AppServerDescriptor } from '../descriptor.js';
import { type EngineLogger, sessionConfig, writeSessionHome } from '../session-home.js';

/** Starts an engine whose home lives under `baseDir`; `dispose` closes it and removes the home. */
export async function startStandaloneEngine(options: {
  descriptor: AppServerDescriptor;
  prepared: PreparedRuntime;
  baseDir: string;
  logger?: EngineLogger;
}): Promise<{ engine: AppServerEngine; dispose(): Promise<void> }> {
  const { descriptor, prepared } = options;
  const files = sessionFiles(join(options.baseDir, `session-${descriptor.id}-${Date.now()}`));
  const config = await sessionConfig(descriptor, prepared.mcpServers, options.logger);
  const home = await writeSessionHome(files, descriptor, config);
  try {
    const engine = await AppServerEngine.start({
      descriptor,
      prepared,
      home,
      spawn: () =>
        spawnAgent(
          {
            command: descriptor.command,
            args: descriptor.args,
            cwd: prepared.cwd,
            env: { ...prepared.env, [descriptor.homeEnvVar]: home.dir },
          },
          { provider: descriptor.id },
        ),
      ...(options.logger ? { logger: options.logger } : {}),
    });
    return {
      engine,
      async dispose() {
        await engine.close();
        await files.remove();
      },
    };
  } catch (error) {
    await files.remove();
    throw error;
  }
}
