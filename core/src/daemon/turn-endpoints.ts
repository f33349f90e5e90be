/**
 * Turn endpoints of the control API (docs/control-api.md): a turn of a daemon-driven session
 * as a `text/event-stream` of normalized events (or, with `Accept: application/json`, all
 * of them in one answer when the turn ends), its cancel, the answers to its permission
 * requests and elicitations, and what live sessions' agents are asked and nobody answered
 * yet. A caller that goes away in the middle of a streamed turn cancels it.
 */
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { TuttiError } from '../errors/index.js';
import {
  type AgentSessionHost,
  type PromptBlock,
  promptSchema,
  type TurnEvent,
} from '../session/index.js';
import { parseBody } from './control-app.js';

const permissionBody = z.object({ outcome: z.enum(['allow', 'deny']) }).strict();

/** The answer to an elicitation: a flat form's values go only with `accept`. */
const elicitationBody = z
  .object({
    action: z.enum(['accept', 'decline', 'cancel']),
    content: z
      .record(
        z.string().min(1).max(256),
        z.union([z.string(), z.number(), z.boolean(), z.array(z.string())]),
      )
      .optional(),
  })
  .strict()
  .refine((body) => body.content === undefined || body.action === 'accept', {
    message: 'content goes only with "accept"',
    path: ['content'],
  });

function promptOf(body: unknown): PromptBlock[] {
  const parsed = z
    .object({ prompt: promptSchema })
    .strict()
    .safeParse(body ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new TuttiError('TUTTI_ERR_TURN_BAD_PROMPT', {
      problem: `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`,
    });
  }
  const { prompt } = parsed.data;
  return typeof prompt === 'string' ? [{ type: 'text', text: prompt }] : (prompt as PromptBlock[]);
}

/** True when the caller asked for one JSON answer rather than an event stream. */
function wantsJson(accept: string | undefined): boolean {
  if (!accept) return false;
  return accept.includes('application/json') && !accept.includes('text/event-stream');
}

/** Adds the turn endpoints to `app`. */
export function registerTurnEndpoints(app: FastifyInstance, host: AgentSessionHost): void {
  app.post('/v1/sessions/:id/turns', async (request, reply) => {
    const id = (request.params as { id: string }).id;
    const prompt = promptOf(request.body);
    if (wantsJson(request.headers.accept)) {
      const events: TurnEvent[] = [];
      const { done } = await host.session(id).startTurn(prompt, (event) => events.push(event));
      await done;
      return { events };
    }
    const queued: TurnEvent[] = [];
    let write: ((event: TurnEvent) => void) | undefined;
    const { done } = await host.session(id).startTurn(prompt, (event) => {
      if (write) write(event);
      else queued.push(event);
    });
    reply.hijack();
    const res = reply.raw;
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-store',
      connection: 'keep-alive',
    });
    write = (event) => {
      if (!res.writableEnded) res.write(`event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
    };
    for (const event of queued.splice(0)) write(event);
    request.raw.once('close', () => {
      if (!res.writableEnded) host.findSession(id)?.cancelTurn();
    });
    await done;
    res.end();
  });

  app.post('/v1/sessions/:id/turns/cancel', async (request) => ({
    cancelled: host.session((request.params as { id: string }).id).cancelTurn(),
  }));

  app.post('/v1/sessions/:id/permissions/:requestId', async (request) => {
    const { id, requestId } = request.params as { id: string; requestId: string };
    const { outcome } = parseBody(permissionBody, request.body);
    host.session(id).answerPermission(requestId, outcome);
    return { answered: requestId, outcome };
  });

  app.post('/v1/sessions/:id/elicitations/:requestId', async (request) => {
    const { id, requestId } = request.params as { id: string; requestId: string };
    const { action, content } = parseBody(elicitationBody, request.body);
    host.session(id).answerElicitation(requestId, content ? { action, content } : { action });
    return { answered: requestId, action };
  });

  app.get('/v1/elicitations', async () => ({ elicitations: host.pendingElicitations() }));
}
