/**
 * bench/ is its own package: the peer aggregators it measures against are its dependencies,
 * locked in its own lock file, so the root's `npm ci` (and CI) never installs them.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const json = (path: string) => JSON.parse(readFileSync(`${root}${path}`, 'utf8'));
const PEERS = ['mcp-proxy', 'supergateway'];

describe('the bench package', () => {
  it('is not a workspace of the root, so the root install leaves it out', () => {
    const workspaces: string[] = json('package.json').workspaces;
    expect(workspaces.some((pattern) => pattern === 'bench' || pattern.startsWith('bench/'))).toBe(
      false,
    );
  });

  it('declares the peer aggregators, and the root lock holds none of them', () => {
    const bench = json('bench/package.json');
    for (const peer of PEERS) expect(bench.dependencies[peer]).toBeDefined();
    const packages = Object.keys(json('package-lock.json').packages);
    expect(
      packages.filter((path) => PEERS.some((peer) => path.endsWith(`node_modules/${peer}`))),
    ).toEqual([]);
    const benchLock = Object.keys(json('bench/package-lock.json').packages);
    for (const peer of PEERS) expect(benchLock).toContain(`node_modules/${peer}`);
  });
});
