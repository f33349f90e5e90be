/**
 * Fuzzing a real `tuttid` process: more than 10,000 hostile requests (seeded, printed,
 * reproducible with TUTTI_FUZZ_SEED) against the loopback MCP endpoint and the control
 * API over keep-alive sockets, 16 at a time. Every answer must follow the rules in the
 * kit's reliability/answer-rules.ts, and the daemon must still serve afterwards. Then
 * every log line, answer body and CLI output is searched for tokens and credentials.
 */
import { readFile, rm } from 'node:fs/promises';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import ConnectorAvailable from '../../cli/src/commands/connector/available.js';
import { DEFAULT_BODY_LIMIT } from '@tutti/core/internal';
import { writeRelease, cleanUp } from '@tutti/test-kit';
import { startTuttid, stopAll, type TuttidProcess } from '@tutti/test-kit/tuttid';
import { controlAnswerProblem, mcpAnswerProblem } from '@tutti/test-kit/reliability/answer-rules';
import {
  controlRequests,
  type HostileRequest,
  mcpRequests,
  takenMcpResponses,
  validMcpRequests,
} from '@tutti/test-kit/reliability/hostile-requests';
import { forgedStateRetries } from '@tutti/test-kit/reliability/forged-states';
import {
  keepAliveAgent,
  mapLimit,
  type RawAnswer,
  send,
} from '@tutti/test-kit/reliability/raw-http';
import { exchange } from '@tutti/test-kit/reliability/raw-socket';

// A fixed default seed keeps `npm test` reproducible; set TUTTI_FUZZ_SEED (any integer) to
// explore other inputs.
const SEED = Number(process.env.TUTTI_FUZZ_SEED ?? 20_261_130);
const CLI_ROOT = fileURLToPath(new URL('../../cli/', import.meta.url));
const CREDENTIAL = `cred-${'s3cr3t'.repeat(4)}-${SEED}`;
const CONCURRENCY = 16;

let home: string;
let daemon: TuttidProcess;
let controlToken: string;
let sessionTokens: string[] = [];
/** The token of a session closed before the requests start. */
let revokedToken: string;
let mcpPort: number;
let controlPort: number;
/** Every answer body and CLI output of this file, for the secret search. */
const outputs: string[] = [];

async function sessionToken(agentSessionId: string): Promise<string> {
  const { status, body } = await daemon.control('POST', '/v1/sessions', {
    workspaceId: 'ws',
    agentSessionId,
    cwd: tmpdir(),
  });
  expect(status).toBe(200);
  const [binding] = body.runtime.mcpServers as { headers: Record<string, string> }[];
  const token = binding!.headers.Authorization!.slice('Bearer '.length);
  // This answer hands the token to its caller on purpose, in the binding's header and
  // nowhere else.
  const text = JSON.stringify(body);
  expect(text.split(token).length - 1).toBe(1);
  outputs.push(text.replace(token, '<issued>'));
  return token;
}

async function run(
  port: number,
  requests: readonly HostileRequest[],
  problemOf: (request: HostileRequest, answer: RawAnswer) => string | undefined,
) {
  const agent = keepAliveAgent(CONCURRENCY);
  try {
    const answers = await mapLimit(requests, CONCURRENCY, (request) => send(port, request, agent));
    const problems: string[] = [];
    answers.forEach((answer, index) => {
      outputs.push(answer.body);
      const problem = problemOf(requests[index]!, answer);
      if (problem && problems.length < 20) {
        const { method, path, headers } = requests[index]!;
        const body = String(requests[index]!.body ?? '').slice(0, 120);
        problems.push(
          redacted(
            `#${index} ${method} ${path.slice(0, 80)} ${JSON.stringify(headers)} ${body} -> ${problem}`,
          ),
        );
      }
    });
    return { answers, problems };
  } finally {
    agent.destroy();
  }
}

function statusCounts(answers: readonly RawAnswer[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const answer of answers) {
    const key = String(answer.status ?? answer.failure);
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

/** One `k_echo` call with the right token: the daemon still serves. */
async function echoCall(): Promise<RawAnswer> {
  const agent = keepAliveAgent(1);
  try {
    return await send(
      mcpPort,
      {
        method: 'POST',
        path: '/mcp/connector',
        headers: {
          authorization: `Bearer ${sessionTokens[0]}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'last',
          method: 'tools/call',
          params: { name: 'k_echo', arguments: { still: 'serving' } },
        }),
      },
      agent,
    );
  } finally {
    agent.destroy();
  }
}

/** `text` with every token of this file replaced, for failure messages. */
function redacted(text: string): string {
  let out = text;
  for (const secret of [controlToken, ...sessionTokens, revokedToken]) {
    out = out.split(secret).join('<token>').split(secret.slice(1)).join('<token-1>');
  }
  return out;
}

beforeAll(async () => {
  console.info(`hostile request seed: ${SEED} (rerun with TUTTI_FUZZ_SEED=${SEED})`);
  home = await mkdtemp(join(tmpdir(), 'tuttid-fuzz-'));
  daemon = await startTuttid(home, ['--no-demo', '--log-level', 'debug']);
  const release = await writeRelease({ key: 'k', serverArgs: [], apiKeyEnv: 'K_TOKEN' });
  outputs.push(
    JSON.stringify(
      (await daemon.control('POST', '/v1/connectors/install', { path: release })).body,
    ),
  );
  const auth = await daemon.control('PUT', '/v1/connectors/k/credentials', { secret: CREDENTIAL });
  outputs.push(JSON.stringify(auth.body));
  expect(auth.body.authReady).toBe(true);
  controlToken = JSON.parse(await readFile(join(home, 'run', 'daemon.json'), 'utf8')).controlToken;
  sessionTokens = [await sessionToken('fuzz-1'), await sessionToken('fuzz-2')];
  revokedToken = await sessionToken('fuzz-revoked');
  expect((await daemon.control('DELETE', '/v1/sessions/fuzz-revoked')).status).toBe(200);
  mcpPort = Number(new URL(daemon.ready.mcpUrl).port);
  controlPort = Number(new URL(daemon.ready.controlUrl).port);
});

afterAll(async () => {
  await stopAll();
  await cleanUp();
  await rm(home, { recursive: true, force: true });
});

describe('a tuttid process under hostile requests', () => {
  it('answers 6,000 hostile, 400 valid MCP requests, 300 responses and 300 forged requestStates by the rules', async () => {
    const target = {
      port: mcpPort,
      sessionToken: sessionTokens[0]!,
      otherTokens: [controlToken, revokedToken, sessionTokens[1]!.slice(0, -2)],
      safeTools: ['k_echo', 'k_fail', 'k_structured', 'k_env_keys', 'k_cancelled_count'],
    };
    const requests = [
      ...mcpRequests(target, SEED, 6_000),
      ...validMcpRequests(target, SEED + 1, 400),
      ...takenMcpResponses(target, SEED + 3, 300),
      ...forgedStateRetries(target, SEED + 4, 300),
    ];
    const { answers, problems } = await run(mcpPort, requests, mcpAnswerProblem);
    console.info('MCP answers by status', statusCounts(answers));
    expect(problems).toEqual([]);
    const reachedRpc = answers.filter(
      (answer, index) => requests[index]!.valid && answer.body.includes('"result"'),
    );
    expect(reachedRpc.length).toBe(400);
  }, 120_000);

  it('answers 4,000 hostile control API requests by the rules', async () => {
    const target = {
      port: controlPort,
      controlToken,
      otherTokens: sessionTokens,
      installedKey: 'k',
    };
    const requests = controlRequests(target, SEED + 2, 4_000);
    const { answers, problems } = await run(controlPort, requests, controlAnswerProblem);
    console.info('control answers by status', statusCounts(answers));
    expect(problems).toEqual([]);
  }, 120_000);

  it('serves bodies just under the size limit and refuses bodies over it with a 413', async () => {
    const headers = {
      host: `127.0.0.1:${mcpPort}`,
      authorization: `Bearer ${sessionTokens[0]}`,
      'content-type': 'application/json',
      'mcp-protocol-version': '2025-06-18',
    };
    const envelope = (text: string) =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 7,
        method: 'tools/call',
        params: { name: 'k_echo', arguments: { text } },
      });
    const room = DEFAULT_BODY_LIMIT - envelope('').length;
    const near: HostileRequest[] = [
      envelope('x'.repeat(room)),
      envelope('é'.repeat(Math.floor(room / 2))),
    ].map((body) => ({
      method: 'POST',
      path: '/mcp/connector',
      headers,
      body,
      valid: true,
      authorized: true,
    }));
    const { answers, problems } = await run(mcpPort, near, mcpAnswerProblem);
    expect(problems).toEqual([]);
    expect(answers.map((answer) => answer.status)).toEqual([200, 200]);

    // Over the limit, the server answers from Content-Length alone, before any body byte.
    for (const extra of [1, 1024, DEFAULT_BODY_LIMIT]) {
      const head = [
        'POST /mcp/connector HTTP/1.1',
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
        `content-length: ${DEFAULT_BODY_LIMIT + extra}`,
        '',
        '',
      ].join('\r\n');
      const answer = await exchange(mcpPort, head, { keepOpen: true });
      outputs.push(answer.text);
      expect(answer.statusLine).toBe('HTTP/1.1 413 Payload Too Large');
      const body = JSON.parse(answer.text.slice(answer.text.indexOf('\r\n\r\n') + 4));
      expect(body.error.data.code).toBe('TUTTI_ERR_SERVER_BODY_TOO_LARGE');
    }
  });

  it('answers malformed HTTP on a raw socket with a 4xx and keeps serving', async () => {
    const texts = [
      'GARBAGE\r\n\r\n',
      'POST /mcp/connector HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello',
      'POST /mcp/connector HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
      'POST /mcp/connector HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n',
      `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`,
      `POST /mcp/connector HTTP/1.1\r\nHost: x\r\nX-Big: ${'b'.repeat(20_000)}\r\n\r\n`,
      'POST /mcp/connector HTTP/1.1\r\nHost x\r\n\r\n',
      'POST /mcp/connector HTTP/9.9\r\n\r\n',
      'POST /mcp/connector HTTP/1.1\r\nHost: x\r\nX: a\u0000b\r\n\r\n',
    ];
    for (const port of [mcpPort, controlPort]) {
      for (const text of texts) {
        const answer = await exchange(port, text);
        outputs.push(answer.text);
        expect(answer.statusLine, text.slice(0, 60)).toMatch(/^HTTP\/1\.1 4\d\d /);
      }
    }
    expect((await echoCall()).status).toBe(200);
  });

  it('still serves a valid call afterwards and has not crashed', async () => {
    const answer = await echoCall();
    expect(answer.status).toBe(200);
    expect(JSON.parse(answer.body).result.content[0].text).toBe('{"still":"serving"}');
    expect(daemon.child.exitCode).toBeNull();
    expect(daemon.child.signalCode).toBeNull();
    const { body } = await daemon.control('GET', '/debug/registry');
    expect(body.connectors.map((c: { key: string; state: string }) => [c.key, c.state])).toEqual([
      ['k', 'ready'],
    ]);
  });

  it('shows no token or credential in any log line, answer or CLI output', async () => {
    const printed: string[] = [];
    const keep = (...args: unknown[]) => void printed.push(args.map(String).join(' '));
    vi.spyOn(console, 'log').mockImplementation(keep);
    vi.spyOn(console, 'error').mockImplementation(keep);
    try {
      await ConnectorAvailable.run(['--json', '--home', home], CLI_ROOT);
      await ConnectorAvailable.run(['--home', home], CLI_ROOT);
    } finally {
      vi.restoreAllMocks();
    }
    expect(printed.join('\n')).toContain('k_');
    for (const path of [
      '/v1/connectors',
      '/v1/sessions',
      '/debug/registry',
      '/metrics',
      '/v1/connectors/available',
    ]) {
      const { body } = await daemon.control('GET', path);
      outputs.push(typeof body === 'string' ? body : JSON.stringify(body));
    }
    const everything = [daemon.stdout(), daemon.stderr(), ...printed, ...outputs].join('\n');
    expect(daemon.stderr().length).toBeGreaterThan(10_000);
    const secrets = {
      controlToken,
      session1: sessionTokens[0]!,
      session2: sessionTokens[1]!,
      revoked: revokedToken,
      credential: CREDENTIAL,
    };
    const leaks = Object.entries(secrets).flatMap(([name, secret]) => {
      const at = everything.indexOf(secret);
      return at < 0
        ? []
        : [`${name}: ${redacted(everything.slice(Math.max(0, at - 200), at + 100))}`];
    });
    expect(leaks).toEqual([]);
  });
});
