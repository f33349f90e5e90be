/**
 * A Claude SDK session outside a session host, for engine tests: the options projected as
 * the provider's tap does, the skills plugin written into a folder of its own, Claude Code
 * spawned through core's agent spawn and stopped as a whole group on dispose.
 */
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import type { Options } from '@anthropic-ai/claude-agent-sdk';
import {
  type AgentProcess,
  type PreparedRuntime,
  sessionFiles,
  createSkillPlugin,
} from '@tutti/core';
import { spawnAgent } from '@tutti/core/internal';
import { ClaudeSdkSession } from '../claude-sdk-session.js';
import { buildQueryOptions } from '../query-options.js';

/** Starts a session whose files live under `baseDir`. */
export async function startStandaloneClaude(input: {
  prepared: PreparedRuntime;
  userOptions?: Options;
  baseDir: string;
}): Promise<{ session: ClaudeSdkSession; dir: string; dispose(): Promise<void> }> {
  const files = sessionFiles(join(input.baseDir, `claude-session-${randomUUID()}`));
  const skillsDir = join(files.dir, 'claude-skills');
  const agents: AgentProcess[] = [];
  const dispose = async () => {
    await Promise.allSettled(agents.map((agent) => agent.terminate()));
    await files.remove();
  };
  try {
    if (input.prepared.skillRoots.length > 0) {
      await files.ensure();
      await createSkillPlugin(input.prepared.skillRoots, { dir: skillsDir });
    }
    const options = buildQueryOptions(input.prepared, {
      ...(input.userOptions ? { userOptions: input.userOptions } : {}),
      sessionId: randomUUID(),
      ...(input.prepared.skillRoots.length > 0 ? { skillPluginDir: skillsDir } : {}),
    });
    const session = await ClaudeSdkSession.start({
      options,
      spawn: (spec) => {
        const agent = spawnAgent(
          {
            command: spec.command,
            args: spec.args,
            cwd: spec.cwd ?? input.prepared.cwd,
            env: spec.env,
            ...(spec.signal ? { signal: spec.signal } : {}),
          },
          { provider: 'claude-sdk' },
        );
        agents.push(agent);
        return agent;
      },
    });
    return {
      session,
      dir: files.dir,
      async dispose() {
        await session.close();
        await dispose();
      },
    };
  } catch (error) {
    await dispose();
    throw error;
  }
}
