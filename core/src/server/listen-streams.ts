/**
 * `subscriptions/listen` streams (MCP 2026-07-28) over SSE: the acknowledgement first,
 * then `notifications/tools/list_changed` on each visible registry change, keep-alive
 * comments in between. A stream ends gracefully (the empty listen result, then EOF) when
 * its token is revoked or the server closes; the client closing it just unsubscribes. One
 * token holds at most `maxPerToken` streams at once; one more is refused before anything
 * is written (TUTTI_ERR_SERVER_TOO_MANY_STREAMS), so a flooding client cannot pin the
 * server's memory or its list_changed fan-out.
 */
import type { ServerResponse } from 'node:http';
import {
  SERVER_INFO_META_KEY,
  SUBSCRIPTION_ID_META_KEY,
  type SubscriptionFilter,
} from '@modelcontextprotocol/server';
import type { Logger } from 'pino';
import type { TokenService, TokenSession } from '../auth/index.js';
import { TuttiError } from '../errors/index.js';
import type { ConnectorMCPRegistry } from '../registry/types.js';
import { SERVER_INFO } from './constants.js';
import type { RpcId } from './json-rpc.js';

/** The open listen streams of one server. */
export interface ListenStreams {
  /**
   * Takes over `res` and serves a listen stream on it for `session`. Throws
   * TUTTI_ERR_SERVER_TOO_MANY_STREAMS, touching nothing, when the token holds its limit.
   */
  open(res: ServerResponse, id: RpcId, session: TokenSession, honored: SubscriptionFilter): void;
  /** Ends every stream gracefully. */
  closeAll(): void;
  /** Number of open streams. */
  readonly size: number;
}

/** Options of {@link createListenStreams}. */
export interface ListenStreamsOptions {
  readonly registry: ConnectorMCPRegistry;
  readonly tokens: TokenService;
  readonly keepAliveMs: number;
  /** Most streams one token may hold open at once. */
  readonly maxPerToken: number;
  readonly logger: Logger;
}

function frame(message: unknown): string {
  return `event: message\ndata: ${JSON.stringify(message)}\n\n`;
}

/** Creates the stream set of one server. */
export function createListenStreams(options: ListenStreamsOptions): ListenStreams {
  const open = new Set<(graceful: boolean) => void>();
  const perToken = new Map<string, number>();

  return {
    open(res, id, session, honored) {
      const { tokenId } = session;
      const held = perToken.get(tokenId) ?? 0;
      if (held >= options.maxPerToken) {
        throw new TuttiError('TUTTI_ERR_SERVER_TOO_MANY_STREAMS', { limit: options.maxPerToken });
      }
      perToken.set(tokenId, held + 1);
      const meta = { [SUBSCRIPTION_ID_META_KEY]: id };
      let ended = false;
      const cleanups: (() => void)[] = [];
      const end = (graceful: boolean): void => {
        if (ended) return;
        ended = true;
        open.delete(end);
        const left = (perToken.get(tokenId) ?? 1) - 1;
        if (left > 0) perToken.set(tokenId, left);
        else perToken.delete(tokenId);
        for (const cleanup of cleanups) cleanup();
        if (graceful && !res.writableEnded) {
          const result = {
            resultType: 'complete',
            _meta: { ...meta, [SERVER_INFO_META_KEY]: SERVER_INFO },
          };
          res.end(frame({ jsonrpc: '2.0', id, result }));
        } else if (!res.writableEnded) {
          res.end();
        }
      };
      open.add(end);

      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
      });
      res.write(
        frame({
          jsonrpc: '2.0',
          method: 'notifications/subscriptions/acknowledged',
          params: { notifications: honored, _meta: meta },
        }),
      );
      res.on('close', () => end(false));
      if (honored.toolsListChanged !== true) {
        // Nothing can ever be delivered: complete the subscription instead of holding it.
        end(true);
        return;
      }
      cleanups.push(
        options.registry.onListChanged(() => {
          res.write(
            frame({
              jsonrpc: '2.0',
              method: 'notifications/tools/list_changed',
              params: { _meta: meta },
            }),
          );
        }),
        options.tokens.onRevoked((revoked) => {
          if (revoked === session) {
            options.logger.debug(
              { tokenId: session.tokenId },
              'listen stream ended: token revoked',
            );
            end(true);
          }
        }),
      );
      if (options.keepAliveMs > 0) {
        const timer = setInterval(() => res.write(': keep-alive\n\n'), options.keepAliveMs);
        timer.unref();
        cleanups.push(() => clearInterval(timer));
      }
    },
    closeAll() {
      for (const end of [...open]) end(true);
    },
    get size() {
      return open.size;
    },
  };
}
