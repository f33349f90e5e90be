/**
 * Elicitations of daemon-driven turns through the control API, on a real control app over
 * a loopback socket and the session host with the fake provider: the `elicitation` event
 * names the connector and tool the daemon's board proves, `GET /v1/elicitations` lists it,
 * `POST /v1/sessions/{id}/elicitations/{requestId}` answers it, and bad answers are refused
 * in the API's own words.
 */
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import { closeHostWorlds, hostWorld } from '@tutti/test-kit/core/host-world';
import { afterEach, describe, expect, it } from 'vitest';
import type {
  ElicitationAnswer,
  ElicitationRequest,
  RelayedElicitation,
} from '../contracts/elicitation.js';
import { buildControlApp } from './control-app.js';
import { registerTurnEndpoints } from './turn-endpoints.js';

const CONTROL_TOKEN = 'control-token-of-the-elicitation-route-tests';
const CONFIRM: ElicitationRequest = {
  mode: 'form',
  message: 'Delete 40 files?',
  requestedSchema: { type: 'object', properties: { confirm: { type: 'boolean' } } },
};
const apps: FastifyInstance[] = [];

/** A JSON answer of the control API, read loosely. */
// biome-ignore lint/suspicious/noExplicitAny: the tests read answers of several shapes.
type Answer = Record<string, any>;

afterEach(async () => {
  for (const app of apps.splice(0)) await app.close();
  await closeHostWorlds();
});

/** A control app on a host whose fake agent relays CONFIRM once per turn from `connector`. */
async function start() {
  const board: RelayedElicitation[] = [];
  const world = await hostWorld({
    elicitations: { pendingFor: (id) => board.filter((entry) => entry.agentSessionId === id) },
  });
  const answers: ElicitationAnswer[] = [];
  world.control.turn = async (_prompt, sink) => {
    answers.push(await sink.elicit({ server: 'connector', request: CONFIRM }));
    return 'end_turn';
  };
  let port = 0;
  const app = buildControlApp({ controlToken: CONTROL_TOKEN, port: () => port });
  registerTurnEndpoints(app, world.host);
  await app.listen({ host: '127.0.0.1', port: 0 });
  port = (app.server.address() as AddressInfo).port;
  apps.push(app);
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`http://127.0.0.1:${port}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${CONTROL_TOKEN}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
        accept: 'application/json',
      },
      ...(body !== undefined && { body: JSON.stringify(body) }),
    });
    return { status: response.status, body: (await response.json()) as Answer };
  };
  const info = await world.start();
  board.push({
    agentSessionId: info.id,
    connector: 'files',
    tool: 'files_confirm_delete',
    request: CONFIRM,
    since: Date.now(),
  });
  /** Starts a turn (one JSON answer at its end) and waits for its elicitation to be listed. */
  const turn = async () => {
    const ended = call('POST', `/v1/sessions/${info.id}/turns`, { prompt: 'Delete them.' });
    let listed: Answer | undefined;
    await expect
      .poll(async () => {
        listed = (await call('GET', '/v1/elicitations')).body.elicitations.find(
          (entry: { requestId?: string }) => entry.requestId,
        );
        return listed;
      })
      .toBeDefined();
    return { ended, requestId: listed!.requestId as string, listed: listed! };
  };
  return { call, info, answers, turn, board };
}

describe('elicitations through the control API', () => {
  it('emits the elicitation with the proven connector and tool, lists it, and hands the agent the answer', async () => {
    const { call, info, answers, turn } = await start();
    const { ended, requestId, listed } = await turn();
    expect(listed).toEqual({
      session: info.id,
      server: 'connector',
      connector: 'files',
      tool: 'files_confirm_delete',
      mode: 'form',
      message: 'Delete 40 files?',
      since: expect.any(Number),
      requestId,
    });
    const answer = await call('POST', `/v1/sessions/${info.id}/elicitations/${requestId}`, {
      action: 'accept',
      content: { confirm: true },
    });
    expect(answer).toEqual({ status: 200, body: { answered: requestId, action: 'accept' } });
    const { body } = await ended;
    expect(body.events).toContainEqual({
      type: 'elicitation',
      requestId,
      server: 'connector',
      connector: 'files',
      tool: 'files_confirm_delete',
      mode: 'form',
      message: 'Delete 40 files?',
      requestedSchema: CONFIRM.requestedSchema,
    });
    expect(body.events.at(-1)).toEqual({ type: 'end', stopReason: 'end_turn' });
    expect(answers).toEqual([{ action: 'accept', content: { confirm: true } }]);
    // Answered: the turn holds it no more, though the connector server's board still may.
    const again = await call('POST', `/v1/sessions/${info.id}/elicitations/${requestId}`, {
      action: 'decline',
    });
    expect(again.status).toBe(404);
    expect(again.body.error.code).toBe('TUTTI_ERR_TURN_UNKNOWN_ELICITATION');
  });

  it('answers 404 for an elicitation id the session never gave, and for an unknown session', async () => {
    const { call, info } = await start();
    const unknown = await call('POST', `/v1/sessions/${info.id}/elicitations/nope`, {
      action: 'cancel',
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe('TUTTI_ERR_TURN_UNKNOWN_ELICITATION');
    const noSession = await call('POST', '/v1/sessions/not-a-session/elicitations/nope', {
      action: 'cancel',
    });
    expect(noSession.status).toBe(404);
    expect(noSession.body.error.code).toBe('TUTTI_ERR_SESSION_UNKNOWN');
  });

  it.each([
    ['content with a decline', { action: 'decline', content: { confirm: true } }, 'content'],
    ['an action the API does not know', { action: 'allow' }, 'action'],
    ['no action', { content: { confirm: true } }, 'action'],
    ['a member the API does not know', { action: 'accept', extra: 1 }, 'body'],
    ['nested content', { action: 'accept', content: { a: { b: 1 } } }, 'content.a'],
    ['an array of numbers', { action: 'accept', content: { a: [1, 2] } }, 'content.a'],
  ])(
    'refuses %s with 400 naming the field, and the elicitation still waits',
    async (_what, body, field) => {
      const { call, info, answers, turn } = await start();
      const { ended, requestId } = await turn();
      const refused = await call('POST', `/v1/sessions/${info.id}/elicitations/${requestId}`, body);
      expect(refused.status).toBe(400);
      expect(refused.body.error.code).toBe('TUTTI_ERR_CONTROL_BAD_REQUEST');
      expect(refused.body.error.message).toContain(field);
      const answered = await call('POST', `/v1/sessions/${info.id}/elicitations/${requestId}`, {
        action: 'cancel',
      });
      expect(answered.status).toBe(200);
      await ended;
      expect(answers).toEqual([{ action: 'cancel' }]);
    },
  );

  it('lists what the board holds for a live session even when no turn asked the host', async () => {
    const { call, info } = await start();
    const { body } = await call('GET', '/v1/elicitations');
    expect(body.elicitations).toEqual([
      {
        session: info.id,
        server: 'connector',
        connector: 'files',
        tool: 'files_confirm_delete',
        mode: 'form',
        message: 'Delete 40 files?',
        since: expect.any(Number),
      },
    ]);
  });
});
