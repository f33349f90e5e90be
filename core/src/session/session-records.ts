/**
 * What the daemon keeps of each daemon-driven session so the session can come back after a
 * restart: one record per session (provider, workspace, ids, cwd, launch command and
 * arguments, options), mode 0600 in a 0700 folder, rewritten as the session changes. No
 * bearer token is ever written. The session's environment (it may hold the user's keys) is
 * kept apart, 0600 like a credential. Both go when the session is closed.
 */
import { createHash } from 'node:crypto';
import { chmod, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { permissionModeSchema } from './turn-types.js';

/** Zod schema of a session record. */
export const sessionRecordSchema = z
  .object({
    agentSessionId: z.string().min(1),
    workspaceId: z.string().min(1),
    provider: z.string().min(1),
    providerSessionId: z.string().optional(),
    cwd: z.string().min(1),
    launch: z
      .object({ command: z.string().optional(), args: z.array(z.string()).optional() })
      .strict()
      .default({}),
    permissions: permissionModeSchema.default('ask'),
    settings: z.array(z.string()).default([]),
    startedAt: z.string(),
    /**
     * Whether the session has had a turn: one without is started afresh after a restart
     * (nothing to lose). Records of earlier releases lack it: taken as having had one.
     */
    turns: z.boolean().default(true),
  })
  .strict();

/** One recorded session. */
export type SessionRecord = z.infer<typeof sessionRecordSchema>;

/** A recorded session with its environment, as read back. */
export interface StoredSession {
  readonly record: SessionRecord;
  /** The request's `env` and `launch.env`. */
  readonly env: Readonly<Record<string, string>>;
  readonly launchEnv: Readonly<Record<string, string>>;
}

/** Where records live; see {@link sessionRecords}. */
export interface SessionRecords {
  /** Writes (or rewrites) the record and its environment. */
  put(
    record: SessionRecord,
    env: Readonly<Record<string, string>>,
    launchEnv: Readonly<Record<string, string>>,
  ): Promise<void>;
  /** Rewrites the record alone (e.g. a new provider session id). */
  update(record: SessionRecord): Promise<void>;
  /** Forgets the session: record and environment. */
  remove(agentSessionId: string): Promise<void>;
  /** Every readable record; unreadable ones are reported to `onProblem` and skipped. */
  list(onProblem?: (file: string, reason: string) => void): Promise<StoredSession[]>;
}

const fileOf = (agentSessionId: string) =>
  createHash('sha256').update(agentSessionId).digest('hex').slice(0, 24);

async function writePrivate(path: string, content: string): Promise<void> {
  const next = `${path}.next`;
  await writeFile(next, content, { mode: 0o600 });
  await chmod(next, 0o600);
  await rename(next, path);
}

/** The records in `dir` (created 0700 on first write). */
export function sessionRecords(dir: string): SessionRecords {
  const ensure = async () => {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await chmod(dir, 0o700);
  };
  const paths = (id: string) => ({
    record: join(dir, `${fileOf(id)}.json`),
    env: join(dir, `${fileOf(id)}.env.json`),
  });
  return {
    async put(record, env, launchEnv) {
      await ensure();
      const { record: recordPath, env: envPath } = paths(record.agentSessionId);
      await writePrivate(envPath, `${JSON.stringify({ env, launchEnv })}\n`);
      await writePrivate(recordPath, `${JSON.stringify(record, null, 2)}\n`);
    },
    async update(record) {
      await ensure();
      await writePrivate(
        paths(record.agentSessionId).record,
        `${JSON.stringify(record, null, 2)}\n`,
      );
    },
    async remove(agentSessionId) {
      const { record, env } = paths(agentSessionId);
      await rm(record, { force: true });
      await rm(env, { force: true });
    },
    async list(onProblem) {
      const names = await readdir(dir).catch(() => [] as string[]);
      const stored: StoredSession[] = [];
      for (const name of names.filter((n) => n.endsWith('.json') && !n.endsWith('.env.json'))) {
        const path = join(dir, name);
        try {
          const record = sessionRecordSchema.parse(JSON.parse(await readFile(path, 'utf8')));
          const envText = await readFile(paths(record.agentSessionId).env, 'utf8').catch(
            () => '{}',
          );
          const { env = {}, launchEnv = {} } = JSON.parse(envText) as {
            env?: Record<string, string>;
            launchEnv?: Record<string, string>;
          };
          stored.push({ record, env, launchEnv });
        } catch (error) {
          onProblem?.(path, error instanceof Error ? error.message.split('\n')[0]! : String(error));
        }
      }
      return stored.sort((a, b) => a.record.startedAt.localeCompare(b.record.startedAt));
    },
  };
}
