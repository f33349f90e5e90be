/**
 * Timing of one benched turn: the markers of the paced model (`[[p:<id>]]` in the prompt,
 * `[[e:<id>:<k>]]` per delta) stamped where they pass (the client sending the prompt, the
 * stamp shim's stdin and stdout, the client receiving each event), all on the system-wide
 * monotonic clock (`process.hrtime`, ns), and the shim wrapper that runs an agent behind
 * `stamp-shim.js`.
 */
import { chmod, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const SHIM = fileURLToPath(new URL('./stamp-shim.js', import.meta.url));
const MARKER = /\[\[[pe]:[\w:-]+\]\]/g;

/** First time each marker was seen, by marker. */
export type Seen = Map<string, bigint>;

/** Records every marker in `text` not seen yet at `at`. */
export function see(seen: Seen, text: string, at: bigint): void {
  for (const match of text.matchAll(MARKER)) if (!seen.has(match[0])) seen.set(match[0], at);
}

/** An agent command behind the shim, and its stamp file. */
export interface Shimmed {
  readonly command: string;
  readonly stamps: string;
}

/** Writes `<dir>/<name>`, a wrapper running `agent` behind the stamp shim. */
export async function writeShim(dir: string, name: string, agent: string): Promise<Shimmed> {
  const command = join(dir, name);
  const stamps = join(dir, `${name}.stamps`);
  const quote = (value: string) => `'${value.replaceAll("'", `'\\''`)}'`;
  await writeFile(stamps, '');
  await writeFile(
    command,
    `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(SHIM)} ${quote(stamps)} ${quote(agent)} "$@"\n`,
  );
  await chmod(command, 0o700);
  return { command, stamps };
}

/** The first stamp of each marker, per kind (`in`/`out` of the shim, the daemon probe's kinds). */
export async function readStamps(file: string): Promise<Map<string, Seen>> {
  const stamps = new Map<string, Seen>();
  for (const line of (await readFile(file, 'utf8')).split('\n')) {
    const [kind, at, marker] = line.split(' ');
    if (!kind || !at || !marker) continue;
    const seen = stamps.get(kind) ?? new Map<string, bigint>();
    stamps.set(kind, seen);
    if (!seen.has(marker)) seen.set(marker, BigInt(at));
  }
  return stamps;
}

/** The shim's first stamps of each marker, per direction. */
export async function shimStamps(file: string): Promise<{ in: Seen; out: Seen }> {
  const stamps = await readStamps(file);
  return { in: stamps.get('in') ?? new Map(), out: stamps.get('out') ?? new Map() };
}

/** The daemon's own part of a turn and the hops on either side of it (ms). */
export interface DaemonPart {
  /** Turn body read to prompt handed to the agent. */
  readonly start: number;
  /** Per delta: the agent's chunk read to the SSE frame handed to the socket. */
  readonly relay: number[];
  /** Per delta: written by the shim to read by the daemon. */
  readonly hopIn: number[];
  /** Per delta: SSE frame handed to the socket to parsed by the client. */
  readonly hopOut: number[];
  /** Turn request sent by the client to its body read by the daemon. */
  readonly startIn: number;
  /** Prompt handed to the agent's stdin to read by the shim. */
  readonly startOut: number;
}

/**
 * The daemon's own part of turn `id`, from the probe's stamps (`daemon-turn-probe.ts`),
 * with the shim's stamps and the client's receipts for the hops around it.
 */
export function daemonPart(
  id: string,
  deltas: readonly string[],
  probe: Map<string, Seen>,
  shim: { in: Seen; out: Seen },
  received: Seen,
  sentAt: bigint,
): DaemonPart {
  const prompt = `[[p:${id}]]`;
  const req = probe.get('req')?.get(prompt);
  const wrote = probe.get('agent-in')?.get(prompt);
  const shimRead = shim.in.get(prompt);
  if (req === undefined || wrote === undefined || shimRead === undefined) {
    throw new Error(
      `turn ${id}: the daemon probe missed the prompt (req ${req}, agent-in ${wrote})`,
    );
  }
  const relay: number[] = [];
  const hopIn: number[] = [];
  const hopOut: number[] = [];
  for (const text of deltas) {
    const marker = text.trim();
    const read = probe.get('agent-out')?.get(marker);
    const sent = probe.get('sse')?.get(marker);
    const written = shim.out.get(marker);
    const got = received.get(marker);
    if (read === undefined || sent === undefined || written === undefined || got === undefined) {
      throw new Error(`turn ${id}: delta ${marker} was not stamped at every point`);
    }
    relay.push(msBetween(read, sent));
    hopIn.push(msBetween(written, read));
    hopOut.push(msBetween(sent, got));
  }
  return {
    start: msBetween(req, wrote),
    relay,
    hopIn,
    hopOut,
    startIn: msBetween(sentAt, req),
    startOut: msBetween(wrote, shimRead),
  };
}

/** Milliseconds between two stamps. */
export const msBetween = (from: bigint, to: bigint): number => Number(to - from) / 1e6;

/** What one turn measured, in ms. */
export interface TurnTiming {
  /** Turn request sent to the prompt read by the shim (the client's or daemon's part). */
  readonly start: number;
  /** Prompt read to the first delta written by the agent (the agent and the model). */
  readonly agent: number;
  /** Turn request sent to the first delta received by the client. */
  readonly firstEvent: number;
  /** Per delta: written by the agent to received by the client. */
  readonly relay: number[];
  /** First to last delta written by the agent (the model streamed them over `(n-1) x gap`). */
  readonly spread: number;
}

/** The timing of turn `id` from the client's send time, its receipts and the shim's stamps. */
export function turnTiming(
  id: string,
  deltas: readonly string[],
  sentAt: bigint,
  received: Seen,
  shim: { in: Seen; out: Seen },
): TurnTiming {
  const read = shim.in.get(`[[p:${id}]]`);
  if (read === undefined) throw new Error(`turn ${id}: the shim never saw the prompt`);
  const relay: number[] = [];
  let first: { written: bigint; got: bigint } | undefined;
  let last = 0n;
  for (const text of deltas) {
    const marker = text.trim();
    const written = shim.out.get(marker);
    const got = received.get(marker);
    if (written === undefined || got === undefined) {
      throw new Error(
        `turn ${id}: delta ${marker} was ${written ? 'not received' : 'never written'}`,
      );
    }
    first ??= { written, got };
    last = written;
    relay.push(msBetween(written, got));
  }
  if (!first) throw new Error(`turn ${id}: no delta`);
  return {
    start: msBetween(sentAt, read),
    agent: msBetween(read, first.written),
    firstEvent: msBetween(sentAt, first.got),
    relay,
    spread: msBetween(first.written, last),
  };
}
