/**
 * A daemon started in this process with `startDaemon`, logging at debug level into
 * memory (so tests can search every line), with helpers for its control API and for
 * agent session tokens. {@link closeDaemons} closes every one started.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { type Daemon, type DaemonOptions, startDaemon } from '@tutti/core';

/** A running in-process daemon and what it logged. */
export interface TestDaemon {
  readonly daemon: Daemon;
  /** Its tutti home (removed by {@link closeDaemons}, not by {@link TestDaemon.stop}). */
  readonly home: string;
  readonly logLines: string[];
  /** Calls the control API with the control token. */
  // biome-ignore lint/suspicious/noExplicitAny: answers are JSON checked by each test
  control(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** A fresh agent session's bearer token, from `POST /v1/sessions`. */
  sessionToken(agentSessionId: string): Promise<string>;
  /** Closes the daemon and keeps its home, for a daemon started again on it (`options.home`). */
  stop(): Promise<void>;
}

const running: { daemon: Daemon; home: string }[] = [];
/** Homes kept by a stop, for a daemon started again on them: removed by closeDaemons. */
const kept = new Set<string>();

/** Starts a daemon on `options.home`, else a temp home, with `options` (no demo connectors). */
export async function startTestDaemon(
  options: Partial<Omit<DaemonOptions, 'logger'>> = {},
): Promise<TestDaemon> {
  const home = options.home ?? (await mkdtemp(join(tmpdir(), 'tutti-reliability-')));
  const logLines: string[] = [];
  const logger = pino({ level: 'debug' }, { write: (line: string) => void logLines.push(line) });
  const daemon = await startDaemon({ home, logger, ...options });
  running.push({ daemon, home });
  const control: TestDaemon['control'] = async (method, path, body) => {
    const response = await fetch(`${daemon.info.controlUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${daemon.info.controlToken}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    try {
      return { status: response.status, body: JSON.parse(text) };
    } catch {
      return { status: response.status, body: text };
    }
  };
  return {
    daemon,
    home,
    logLines,
    control,
    async stop() {
      const at = running.findIndex((entry) => entry.daemon === daemon);
      if (at >= 0) running.splice(at, 1);
      kept.add(home);
      await daemon.close();
    },
    async sessionToken(agentSessionId) {
      const { body } = await control('POST', '/v1/sessions', {
        workspaceId: 'ws',
        agentSessionId,
        cwd: tmpdir(),
      });
      const [binding] = body.runtime.mcpServers as { headers: Record<string, string> }[];
      return binding!.headers.Authorization!.slice('Bearer '.length);
    },
  };
}

/** Closes every daemon started here and removes its home. */
export async function closeDaemons(): Promise<void> {
  for (const { daemon, home } of running.splice(0)) {
    await daemon.close();
    kept.delete(home);
    await rm(home, { recursive: true, force: true });
  }
  for (const home of kept) await rm(home, { recursive: true, force: true });
  kept.clear();
}
