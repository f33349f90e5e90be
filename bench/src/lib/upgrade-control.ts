/**
 * The control API of a running `tuttid`, as the upgrade bench uses it: the URL comes from
 * the ready line, the bearer token from `<home>/run/daemon.json`. It opens a prepare-only
 * session (the `connector` server binding) and installs releases, checking each install
 * answer. The token is never logged or put into an error.
 */
import {
  type ControlAnswer,
  controlClient as kitControl,
  readControlToken,
} from '@tutti/test-kit/tuttid';
import type { Endpoint } from '../clients/connection.js';
import type { ReadyLine } from './daemon-process.js';

/** The runtime part of an install answer. */
export interface RuntimeStatus {
  readonly state?: string;
  readonly revision: number;
  readonly pid?: number;
}

/** One timed install: `ok` when the release is live as asked. */
export interface InstallAnswer {
  readonly ms: number;
  readonly ok: boolean;
  readonly problem?: string | undefined;
  readonly status?: RuntimeStatus | undefined;
}

/** How long one control request may take before it counts as failed. */
const REQUEST_TIMEOUT_MS = 30_000;

/** A control client for the daemon started on `home` whose ready line is `ready`. */
export async function controlClient(home: string, ready: ReadyLine) {
  const control = kitControl(ready.controlUrl, await readControlToken(home), {
    timeoutMs: REQUEST_TIMEOUT_MS,
  });

  return {
    control,
    /** The `connector` server binding (`{ name, url, headers }`) of a new prepare-only session. */
    async binding(cwd: string): Promise<Endpoint> {
      const { status, body } = await control('POST', '/v1/sessions', {
        workspaceId: 'bench-upgrades',
        agentSessionId: 'bench-upgrades-load',
        cwd,
      });
      const server = body?.runtime?.mcpServers?.[0];
      if (status !== 200 || !server?.url) {
        throw new Error(`POST /v1/sessions answered ${status} without an MCP server binding`);
      }
      return { name: 'connector (tuttid)', url: server.url, headers: server.headers };
    },
    /**
     * Installs the release in `path` and times the request: `{ ms, ok, problem?, status }`.
     * `ok` only when the answer says the release changed to `version` and the connector is
     * ready on a revision after `after` (the previous install's status, when given).
     */
    async install(path: string, version: string, after?: RuntimeStatus): Promise<InstallAnswer> {
      const started = performance.now();
      let answer: ControlAnswer;
      try {
        answer = await control('POST', '/v1/connectors/install', { path });
      } catch (error) {
        const ms = performance.now() - started;
        return { ms, ok: false, problem: `install request failed: ${(error as Error).message}` };
      }
      const ms = performance.now() - started;
      const { status, body } = answer;
      const runtime = body?.runtime;
      let problem: string | undefined;
      if (status !== 200) problem = `HTTP ${status}: ${body?.error?.code ?? ''}`;
      else if (body.version !== version) problem = `installed ${body.version}, not ${version}`;
      else if (body.changed !== true) problem = `install of ${version} changed nothing`;
      else if (runtime?.state !== 'ready') problem = `connector ${runtime?.state} after install`;
      else if (after && runtime.revision <= after.revision) problem = 'revision did not advance';
      else if (after?.pid && runtime.pid === after.pid) problem = 'same upstream pid as before';
      return { ms, ok: problem === undefined, problem, status: runtime };
    },
  };
}
