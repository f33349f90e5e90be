/**
 * `launchUpstream` passes the manifest's `mcp.serializeCalls` to the upstream: a stdio
 * server that elicits then gets each of two concurrent calls' questions asked, instead of
 * cancelled as unroutable.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UPSTREAM_FIXTURES } from '@tutti/test-kit';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ElicitationRequest, UpstreamCallResult } from '../contracts/index.js';
import { parseManifest, resolveReleasePaths } from '../manifest/index.js';
import { createProcessSupervisor, type ProcessSupervisor } from '../process/index.js';
import type { InstalledConnector } from '../store/index.js';
import type { UpstreamConnection } from '../upstream/index.js';
import { launchUpstream } from './launch-upstream.js';

let releaseDir: string;
let supervisor: ProcessSupervisor;
const open: UpstreamConnection[] = [];

beforeAll(() => {
  releaseDir = mkdtempSync(join(tmpdir(), 'tutti-launch-'));
  supervisor = createProcessSupervisor({ graceMs: 300 });
});
afterEach(async () => {
  await Promise.all(open.splice(0).map((upstream) => upstream.close()));
});
afterAll(async () => {
  await supervisor.close();
  rmSync(releaseDir, { recursive: true, force: true });
});

/** An installed connector running the stdio fixture, with `serializeCalls` as given. */
function connector(serializeCalls: boolean | undefined): InstalledConnector {
  const manifest = parseManifest(
    {
      key: 'asks',
      name: 'Asks',
      description: 'A server that asks the person.',
      version: '1.0.0',
      mcp: {
        command: process.execPath,
        args: [join(UPSTREAM_FIXTURES, 'stdio-server.mjs')],
        ...(serializeCalls !== undefined && { serializeCalls }),
      },
    },
    'test',
  );
  return {
    key: 'asks',
    manifest,
    releaseDir,
    digest: 'd',
    revision: 1,
    installedAt: new Date(0).toISOString(),
    paths: resolveReleasePaths(manifest, releaseDir),
    skills: [],
  };
}

/** What two concurrent confirm_delete calls on `upstream` were asked. */
async function askTwice(upstream: UpstreamConnection): Promise<string[][]> {
  const asked: string[][] = [[], []];
  const call = (index: number) =>
    upstream.callTool(
      'confirm_delete',
      { files: index + 1 },
      {
        elicit: async (request: ElicitationRequest) => {
          asked[index]!.push(request.message);
          return { action: 'decline' };
        },
      },
    );
  const results: UpstreamCallResult[] = await Promise.all([call(0), call(1)]);
  expect(results).toHaveLength(2);
  return asked;
}

async function launch(serializeCalls: boolean | undefined) {
  const upstream = await launchUpstream(connector(serializeCalls), undefined, {
    supervisor,
    onToolsChanged: () => {},
    onExit: () => {},
  });
  open.push(upstream);
  return upstream;
}

describe('launchUpstream', () => {
  it('runs the calls one at a time when the manifest says mcp.serializeCalls', async () => {
    expect(await askTwice(await launch(true))).toEqual([['Delete 1 files?'], ['Delete 2 files?']]);
  });

  it('runs them side by side otherwise, so a stdio question is unroutable and cancelled', async () => {
    expect(await askTwice(await launch(undefined))).toEqual([[], []]);
  });
});
