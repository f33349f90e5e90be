/**
 * CLI benchmarks: (1) the cost of a published `tutti-connector-<key>` shim (a `sh` script
 * that execs the entrypoint) over running the entrypoint directly, for `/bin/true` and for
 * a Node script; (2) `tutti connector available` (table and `--json`) against a running
 * `tuttid` versus `node -e 0`, the floor of any Node CLI, with the imports it could pay
 * for (`@oclif/core`, `@tutti/core`; the bin's fast path loads neither) timed on their
 * own. `BENCH_QUICK=1` runs fewer rounds.
 */
import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { REPO_ROOT, TUTTI_BIN as TUTTI } from '@tutti/test-kit';
import { publishShim } from '@tutti/core/internal';
import { alternate, type Samples, summary, type TimedCommand } from './lib/daemon-cli-runs.js';
import { benchDir, homeWithReleases, writeStdioReleases } from './lib/daemon-home.js';
import { startTuttid, type Tuttid } from './lib/daemon-process.js';
import type { Row } from './types.js';

type Env = Record<string, string>;

/** The samples of `name`; throws when the command was not run. */
function of(samples: Map<string, Samples>, name: string): Samples {
  const found = samples.get(name);
  if (!found) throw new Error(`cli bench: no samples of ${name}`);
  return found;
}

const CLI_DIR = join(REPO_ROOT, 'cli');
const node = process.execPath;

/** Rows for a measured command against its baseline: p50 and mean, each with the ratio. */
function pairRows(
  group: string,
  samples: Map<string, Samples>,
  name: string,
  baseline: string,
): Row[] {
  const a = summary(of(samples, name).ms);
  const b = summary(of(samples, baseline).ms);
  const runs = of(samples, name).ms.length;
  return [
    {
      group,
      name: `${name}, p50 (${runs} runs)`,
      value: a.p50,
      unit: 'ms',
      baseline: { name: `${baseline}, p50`, value: b.p50 },
    },
    {
      group,
      name: `${name}, mean`,
      value: a.mean,
      unit: 'ms',
      baseline: { name: `${baseline}, mean`, value: b.mean },
    },
    { group, name: `${baseline}, p50 (${runs} runs)`, value: b.p50, unit: 'ms' },
    { group, name: `${baseline}, mean`, value: b.mean, unit: 'ms' },
  ];
}

/** Mean CPU time (user + system) of `name` against `baseline`: robust to a busy machine. */
function cpuRow(group: string, samples: Map<string, Samples>, name: string, baseline: string): Row {
  return {
    group,
    name: `${name}, CPU user+sys, mean`,
    value: summary(of(samples, name).cpuMs).mean,
    unit: 'ms',
    baseline: { name: `${baseline}, CPU mean`, value: summary(of(samples, baseline).cpuMs).mean },
  };
}

async function shimRows(dir: string, env: Env, quick: boolean): Promise<Row[]> {
  const binDir = join(dir, 'bin');
  const script = join(dir, 'entry.mjs');
  await writeFile(script, '');
  const trueShim = await publishShim({
    binDir,
    key: 'bench-true',
    generation: 1,
    entrypoint: { command: '/bin/true', args: [] },
  });
  const nodeShim = await publishShim({
    binDir,
    key: 'bench-node',
    generation: 1,
    entrypoint: { command: node, args: [script] },
  });
  const small = alternate(
    [
      { name: 'shim -> /bin/true', command: trueShim.path, env },
      { name: '/bin/true directly', command: '/bin/true', env },
    ],
    { runs: quick ? 60 : 200, warmup: 10 },
  );
  const nodeRuns = alternate(
    [
      { name: 'shim -> node entry.mjs', command: nodeShim.path, env },
      { name: 'node entry.mjs directly', command: node, args: [script], env },
    ],
    { runs: quick ? 10 : 30, warmup: 3 },
  );
  const overhead = (samples: Map<string, Samples>, a: string, b: string) =>
    summary(of(samples, a).ms).p50 - summary(of(samples, b).ms).p50;
  console.error(
    `cli: shim overhead p50 ${overhead(small, 'shim -> /bin/true', '/bin/true directly').toFixed(2)} ms (/bin/true), ${overhead(nodeRuns, 'shim -> node entry.mjs', 'node entry.mjs directly').toFixed(2)} ms (node)`,
  );
  return [
    ...pairRows('cli shim', small, 'shim -> /bin/true', '/bin/true directly'),
    ...pairRows('cli shim', nodeRuns, 'shim -> node entry.mjs', 'node entry.mjs directly'),
    cpuRow('cli shim', nodeRuns, 'shim -> node entry.mjs', 'node entry.mjs directly'),
  ];
}

async function availableRows(dir: string, env: Env, quick: boolean): Promise<Row[]> {
  const releases = await writeStdioReleases(join(dir, 'releases'), 3, 5);
  const home = await homeWithReleases(releases);
  let daemon: Tuttid | undefined;
  try {
    daemon = await startTuttid(home.home);
    const available = ['connector', 'available', '--home', home.home];
    const commands: TimedCommand[] = [
      { name: 'tutti connector available', command: node, args: [TUTTI, ...available], env },
      {
        name: 'tutti connector available --json',
        command: node,
        args: [TUTTI, ...available, '--json'],
        env,
      },
      { name: 'node -e 0', command: node, args: ['-e', '0'], env },
      {
        name: "node: import('@oclif/core')",
        command: node,
        args: ['--input-type=module', '-e', "await import('@oclif/core')"],
        env,
        cwd: CLI_DIR,
      },
      {
        name: "node: import('@tutti/core')",
        command: node,
        args: ['--input-type=module', '-e', "await import('@tutti/core')"],
        env,
        cwd: CLI_DIR,
      },
      {
        name: 'node: fetchAvailableConnectors() from cli/dist (imports @tutti/core/client)',
        command: node,
        args: [
          '--input-type=module',
          '-e',
          `const m = await import('./dist/daemon-client.js'); await m.fetchAvailableConnectors(${JSON.stringify(home.home)});`,
        ],
        env,
        cwd: CLI_DIR,
      },
    ];
    // Time the real answer, not an error or an empty list.
    const check = spawnSync(node, [TUTTI, ...available], { env, encoding: 'utf8' });
    if (check.status !== 0 || !check.stdout.includes('(bench-002)')) {
      throw new Error(`tutti connector available gave no connector list: ${check.stderr}`);
    }
    const samples = alternate(commands, { runs: quick ? 4 : 10, warmup: 1 });
    const floor = 'node -e 0';
    const p50 = (name: string) => summary(of(samples, name).ms).p50;
    console.error(
      `cli: connector available p50 ${p50('tutti connector available').toFixed(0)} ms vs node -e 0 ${p50(floor).toFixed(0)} ms`,
    );
    const runs = of(samples, floor).ms.length;
    const group = 'cli connector available';
    return [
      ...pairRows(group, samples, 'tutti connector available', floor).slice(0, 2),
      ...pairRows(group, samples, 'tutti connector available --json', floor),
      ...commands.slice(3).map((command) => ({
        group,
        name: `part: ${command.name}, p50 (${runs} runs)`,
        value: p50(command.name),
        unit: 'ms',
        baseline: { name: `${floor}, p50`, value: p50(floor) },
      })),
      ...commands
        .filter((command) => command.name !== floor)
        .map((command) => cpuRow(group, samples, command.name, floor)),
      {
        group,
        name: `${floor}, CPU user+sys, mean`,
        value: summary(of(samples, floor).cpuMs).mean,
        unit: 'ms',
      },
    ];
  } finally {
    await daemon?.stop();
    await home.remove();
  }
}

/** The CLI bench. */
export default async function cliBench(): Promise<Row[]> {
  const quick = process.env.BENCH_QUICK === '1';
  const temp = await benchDir('tutti-bench-cli-');
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: temp.dir,
    XDG_CONFIG_HOME: temp.dir,
    XDG_DATA_HOME: temp.dir,
    XDG_CACHE_HOME: temp.dir,
    XDG_STATE_HOME: temp.dir,
  };
  try {
    return [
      ...(await shimRows(temp.dir, env, quick)),
      ...(await availableRows(temp.dir, env, quick)),
    ];
  } finally {
    await temp.remove();
  }
}
