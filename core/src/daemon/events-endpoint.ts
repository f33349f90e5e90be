/**
 * `GET /v1/events`: the daemon's event stream as server-sent events (one `event:` per
 * event type, its JSON as `data:`, its sequence number as `id:`), with a keep-alive comment
 * every 15 s. `?since=<id>` (or a `Last-Event-ID` header) first replays the recent events
 * after that one, so a host that reconnects, or connects right after a start, misses
 * nothing the hub still keeps. A reader that cannot keep up is dropped by the hub with an
 * `event: dropped` that says why; it never slows the daemon. A stream given an `until`
 * signal (the dashboard's, whose login may end) ends when it aborts, with a last
 * `event: ended` whose data holds the signal's reason.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { EventHub, TuttiEvent } from '../events/index.js';

const KEEP_ALIVE_MS = 15_000;

/** Adds the endpoint. */
export function registerEventsEndpoint(app: FastifyInstance, hub: EventHub): void {
  app.get('/v1/events', (request, reply) => streamEvents(hub, request, reply));
}

/**
 * Answers `request` with the hub's event stream (also the dashboard's, behind its login),
 * until the client goes, the hub drops it, or `until` aborts.
 */
export function streamEvents(
  hub: EventHub,
  request: FastifyRequest,
  reply: FastifyReply,
  until?: AbortSignal,
): void {
  reply.hijack();
  const res = reply.raw;
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-store',
    connection: 'keep-alive',
  });
  res.write(': tutti events\n\n');
  const query = request.query as { since?: string };
  const since = Number(query.since ?? request.headers['last-event-id'] ?? Number.NaN);
  const replay = Number.isFinite(since) ? hub.recent().filter((event) => event.id > since) : [];
  for (const event of replay) {
    res.write(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`);
  }
  let ended = false;
  const keepAlive = setInterval(() => res.write(': keep-alive\n\n'), KEEP_ALIVE_MS);
  keepAlive.unref();
  const finish = () => {
    ended = true;
    clearInterval(keepAlive);
    until?.removeEventListener('abort', stop);
  };
  const unsubscribe = hub.subscribe({
    write: (event: TuttiEvent) =>
      ended
        ? true
        : res.write(`id: ${event.id}\nevent: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`),
    onDrain: (listener) => res.once('drain', listener),
    end: (reason) => {
      if (ended) return;
      finish();
      if (reason) res.write(`event: dropped\ndata: ${JSON.stringify({ reason })}\n\n`);
      res.end();
    },
  });
  function stop(): void {
    if (ended) return;
    res.write(`event: ended\ndata: ${JSON.stringify({ reason: String(until?.reason) })}\n\n`);
    // The hub then ends the sink, which ends the response.
    unsubscribe();
  }
  if (until?.aborted) stop();
  else until?.addEventListener('abort', stop, { once: true });
  request.raw.once('close', () => {
    finish();
    unsubscribe();
  });
}
