/**
 * Newline-delimited JSON over an agent's stdio, with the bounds a misbehaving agent needs:
 * a line longer than `maxLineBytes`, more than `maxNoiseLines` lines that are not JSON
 * objects, or more than `maxMessagesPerSecond` messages in a second is a fault; so is
 * stdin closing under a write (EPIPE) and the process ending. A fault is reported once,
 * with what happened and the agent's last stderr lines, and the agent is stopped as one
 * that failed (its session ends with that reason). Both stdio protocols (ACP, app-server)
 * read and write through this one channel; an agent an SDK drives is watched by it.
 */
import { TuttiError } from '../errors/index.js';
import type { AgentExit, AgentProcess } from '../process/agent-process.js';

/** Bounds of one channel; see `docs/agents.md`. */
export interface ChannelLimits {
  /** Longest line in bytes (default 4 MiB). */
  readonly maxLineBytes: number;
  /** Lines that are not JSON objects tolerated before it is a fault (default 200). */
  readonly maxNoiseLines: number;
  /** Messages per second tolerated before it is a fault (default 5,000). */
  readonly maxMessagesPerSecond: number;
}

/** Default channel bounds. */
export const DEFAULT_CHANNEL_LIMITS: ChannelLimits = Object.freeze({
  maxLineBytes: 4 * 1024 * 1024,
  maxNoiseLines: 200,
  maxMessagesPerSecond: 5_000,
});

/** What went wrong with an agent, once. */
export interface AgentFault {
  readonly kind: 'exited' | 'line-too-long' | 'not-json' | 'flood' | 'stdin-closed';
  /** A sentence fragment: "exited (exit code 1)", "wrote a line over 4194304 bytes", ... */
  readonly what: string;
  /** The agent's last stderr lines at the time, redacted. */
  readonly stderr: readonly string[];
  readonly exit?: AgentExit;
}

/** A JSON object received from the agent. */
export type ChannelMessage = Record<string, unknown>;

/** The channel; create it with {@link openAgentChannel}. */
export interface AgentChannel {
  readonly agent: AgentProcess;
  /** The fault, once there is one. */
  readonly fault: AgentFault | undefined;
  /** Resolves with the fault (an agent's end is a fault too, unless the daemon stopped it). */
  readonly faulted: Promise<AgentFault>;
  /** Sends one message as a JSON line; dropped once there is a fault. */
  send(message: unknown): void;
  /** Receives every message, in order. */
  onMessage(listener: (message: ChannelMessage) => void): void;
  /** The fault as the error of a request that it interrupted. */
  errorFor(method: string): TuttiError;
}

const NEWLINE = 0x0a;
const STDIN_CLOSED_GRACE_MS = 300;

/**
 * Holds an agent whose stdio an SDK reads and writes itself (the Claude Agent SDK) to the
 * same bounds: it only watches, parses nothing, and stops the agent on a fault, so the SDK
 * sees the agent end instead of a flood, an endless line or a write that never lands.
 */
export function watchAgentOutput(
  agent: AgentProcess,
  limits: Partial<ChannelLimits> = {},
): Pick<AgentChannel, 'fault' | 'faulted'> {
  return openAgentChannel(agent, limits, { watchOnly: true });
}

/** Opens the channel on `agent`'s stdout and stdin. */
export function openAgentChannel(
  agent: AgentProcess,
  limits: Partial<ChannelLimits> = {},
  mode: { readonly watchOnly?: boolean } = {},
): AgentChannel {
  const bounds = { ...DEFAULT_CHANNEL_LIMITS, ...limits };
  const listeners: ((message: ChannelMessage) => void)[] = [];
  let fault: AgentFault | undefined;
  let resolveFault!: (fault: AgentFault) => void;
  const faulted = new Promise<AgentFault>((resolve) => {
    resolveFault = resolve;
  });
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let noise = 0;
  let windowStart = Date.now();
  let windowCount = 0;

  const fail = (kind: AgentFault['kind'], what: string, exit?: AgentExit) => {
    if (fault) return;
    fault = Object.freeze({ kind, what, stderr: exit?.stderr ?? agent.stderrLines(), exit });
    agent.stdout.removeListener('data', onData);
    agent.stdout.resume();
    resolveFault(fault);
    if (kind !== 'exited') void agent.fail(what);
  };

  const deliver = (line: Buffer) => {
    if (line.length === 0 || (line.length === 1 && line[0] === 0x0d)) return;
    let value: unknown;
    if (mode.watchOnly) {
      value = looksLikeObject(line) ? {} : undefined;
    } else {
      try {
        value = JSON.parse(line.toString('utf8'));
      } catch {
        value = undefined;
      }
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      noise += 1;
      if (noise > bounds.maxNoiseLines) {
        fail('not-json', `wrote more than ${bounds.maxNoiseLines} lines that are not JSON-RPC`);
      }
      return;
    }
    const now = Date.now();
    if (now - windowStart >= 1_000) {
      windowStart = now;
      windowCount = 0;
    }
    windowCount += 1;
    if (windowCount > bounds.maxMessagesPerSecond) {
      fail('flood', `sent more than ${bounds.maxMessagesPerSecond} messages in one second`);
      return;
    }
    for (const listener of listeners) listener(value as ChannelMessage);
  };

  function onData(chunk: Buffer): void {
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      if (end === -1) break;
      const piece = chunk.subarray(start, end);
      const line = pendingBytes > 0 ? Buffer.concat([...pending, piece]) : piece;
      pending = [];
      pendingBytes = 0;
      if (line.length > bounds.maxLineBytes) {
        fail('line-too-long', `wrote a line over ${bounds.maxLineBytes} bytes`);
        return;
      }
      deliver(line);
      if (fault) return;
      start = end + 1;
    }
    if (start < chunk.length) {
      const rest = chunk.subarray(start);
      pendingBytes += rest.length;
      if (pendingBytes > bounds.maxLineBytes) {
        fail('line-too-long', `wrote a line over ${bounds.maxLineBytes} bytes`);
        return;
      }
      pending.push(rest);
    }
  }

  // A closed stdin usually means the agent is ending: give its exit a moment to be the
  // reason, since "exit code 127" says more than "EPIPE".
  const stdinClosed = (what: string) => {
    setTimeout(() => fail('stdin-closed', what), STDIN_CLOSED_GRACE_MS).unref();
  };
  agent.stdin.on('error', (error: NodeJS.ErrnoException) =>
    stdinClosed(`closed its stdin (${error.code ?? error.message})`),
  );
  agent.stdout.on('data', onData);
  void agent.exited.then((exit) => {
    if (!exit.expected) fail('exited', `exited (${exit.description})`, exit);
    else if (!fault) fail('exited', `was stopped (${exit.description})`, exit);
  });

  return {
    agent,
    get fault() {
      return fault;
    },
    faulted,
    send(message) {
      if (fault) return;
      if (!agent.write(`${JSON.stringify(message)}\n`)) stdinClosed('closed its stdin');
    },
    onMessage(listener) {
      listeners.push(listener);
    },
    errorFor(method) {
      return faultError(agent.provider, method, fault);
    },
  };
}

/** Whether a line starts (after blanks) with `{`: what the watch-only mode counts as a message. */
function looksLikeObject(line: Buffer): boolean {
  for (const byte of line) {
    if (byte === 0x20 || byte === 0x09 || byte === 0x0d) continue;
    return byte === 0x7b;
  }
  return false;
}

/** The TuttiError for a request that `fault` interrupted (or that failed without one). */
export function faultError(
  provider: string,
  method: string,
  fault: AgentFault | undefined,
): TuttiError {
  const ended = fault === undefined || fault.kind === 'exited' || fault.kind === 'stdin-closed';
  return new TuttiError(
    ended ? 'TUTTI_ERR_PROVIDER_AGENT_EXITED' : 'TUTTI_ERR_PROVIDER_AGENT_MISBEHAVED',
    {
      provider,
      method,
      what: fault?.what ?? 'stopped answering',
      stderr: stderrSentence(fault?.stderr ?? []),
    },
  );
}

/** The stderr part of an agent error message. */
export function stderrSentence(lines: readonly string[]): string {
  return lines.length > 0
    ? ` Its last stderr lines: [${lines.join(' | ')}].`
    : ' It wrote nothing to stderr.';
}
