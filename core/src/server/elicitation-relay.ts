/**
 * Elicitation on the 2025 surface: an upstream's `elicitation/create` relayed on the
 * streamed answer of the `tools/call` it belongs to, and the agent's POSTed response
 * matched back to it. What a caller's `initialize` declared is remembered with its session
 * token (the surface keeps no protocol session), forgotten when the token is revoked and
 * bounded in count. A caller that cannot be asked, a full relay, a wait past the timeout,
 * the call's end and the token's revocation all answer the upstream `cancel`: nothing an
 * upstream asks ever hangs, and nothing but elicitation is relayed to an agent.
 */
import type { Logger } from 'pino';
import type { TokenService, TokenSession } from '../auth/index.js';
import type {
  CallSignal,
  ElicitationAnswer,
  ElicitationMode,
  ElicitationRequest,
} from '../contracts/index.js';
import { isPlainObject } from '../util/objects.js';
import type { CallStream } from './call-stream.js';
import {
  MAX_PENDING_ELICITATIONS,
  MAX_PENDING_ELICITATIONS_PER_TOKEN,
  MAX_REMEMBERED_CAPABILITIES,
} from './constants.js';
import { elicitationAnswerOf } from './elicitation-answer.js';
import type { ElicitationBoard } from './elicitation-board.js';
import type { RpcId } from './json-rpc.js';

/** The modes a caller declared, as bits. */
export const FORM_MODE = 1;
export const URL_MODE = 2;

const CANCEL: ElicitationAnswer = Object.freeze({ action: 'cancel' });

/** What the relay needs to know of one call that may elicit. */
export interface RelayCall {
  readonly session: TokenSession;
  readonly signal: CallSignal;
  readonly stream: CallStream;
  /** The modes the caller declared (bits). */
  readonly modes: number;
  /** The connector and local tool name of the call, once it resolved its binding. */
  readonly target: () => { readonly connector: string; readonly tool: string } | undefined;
}

/**
 * The `elicit` handler of one call, and `end`, which the edge calls when the call is over:
 * a question still waiting then is answered `cancel` (the upstream no longer waits for it)
 * and withdrawn from the agent and the board.
 */
export type CallElicit = ((request: ElicitationRequest) => Promise<ElicitationAnswer>) & {
  end(why: string): void;
};

/** A POSTed JSON-RPC response, as classified. */
export interface PostedResponse {
  readonly id: RpcId | null;
  /** The result of a result response; undefined for an error response. */
  readonly result?: unknown;
}

/** The elicitation relay of one server. */
export interface ElicitationRelay {
  /** Remembers (or forgets) the elicitation modes an `initialize`'s params declare. */
  remember(tokenId: string, initializeParams: unknown): void;
  /** The modes the token's last `initialize` declared (bits; 0: none). */
  modesOf(tokenId: string): number;
  /** The `elicit` handler of one call. */
  elicitFor(call: RelayCall): CallElicit;
  /**
   * Settles the pending elicitation `response` answers, when it is one of `tokenId`'s:
   * true when it matched (an invalid result or an error response answers `cancel`).
   */
  answer(tokenId: string, response: PostedResponse): boolean;
  /** Stops listening to revocations and answers every pending elicitation `cancel`. */
  close(): void;
}

/** Options of {@link createElicitationRelay}. */
export interface ElicitationRelayOptions {
  readonly tokens: TokenService;
  readonly board: ElicitationBoard;
  readonly timeoutMs: number;
  readonly logger: Logger;
  /** Most pending per token and in all (defaults: constants.ts). */
  readonly maxPerToken?: number;
  readonly maxPending?: number;
  /** Most tokens whose capability is remembered (default: constants.ts). */
  readonly maxRemembered?: number;
}

/** The modes `initialize` params declare: `{}` is form (as in 2025-06-18), else form/url. */
export function declaredModes(initializeParams: unknown): number {
  const capabilities = isPlainObject(initializeParams) ? initializeParams.capabilities : undefined;
  const elicitation = isPlainObject(capabilities) ? capabilities.elicitation : undefined;
  if (!isPlainObject(elicitation)) return 0;
  let modes = 0;
  if (isPlainObject(elicitation.form)) modes |= FORM_MODE;
  if (isPlainObject(elicitation.url)) modes |= URL_MODE;
  return modes === 0 && Object.keys(elicitation).length === 0 ? FORM_MODE : modes;
}

/** The relayed params of `request`: exactly its members, or undefined when malformed. */
export function relayedRequest(request: ElicitationRequest): ElicitationRequest | undefined {
  if (typeof request.message !== 'string') return undefined;
  if (request.mode === 'form' && isPlainObject(request.requestedSchema)) {
    return { mode: 'form', message: request.message, requestedSchema: request.requestedSchema };
  }
  if (request.mode === 'url' && typeof request.url === 'string') {
    // A 2026-07-28 upstream sends no `elicitationId` (that revision dropped it); the 2025
    // wire requires one, so the relay gives it its own id (see elicitFor).
    return typeof request.elicitationId === 'string'
      ? {
          mode: 'url',
          message: request.message,
          url: request.url,
          elicitationId: request.elicitationId,
        }
      : { mode: 'url', message: request.message, url: request.url };
  }
  return undefined;
}

function modeBit(mode: ElicitationMode): number {
  return mode === 'url' ? URL_MODE : FORM_MODE;
}

interface Pending {
  readonly tokenId: string;
  readonly mode: ElicitationMode;
  settle(answer: ElicitationAnswer, why?: string): void;
}

/** Creates the relay of one server. */
export function createElicitationRelay(options: ElicitationRelayOptions): ElicitationRelay {
  const { board, logger } = options;
  const maxPerToken = options.maxPerToken ?? MAX_PENDING_ELICITATIONS_PER_TOKEN;
  const maxPending = options.maxPending ?? MAX_PENDING_ELICITATIONS;
  const maxRemembered = options.maxRemembered ?? MAX_REMEMBERED_CAPABILITIES;
  const modesByToken = new Map<string, number>();
  const pending = new Map<string, Pending>();
  const perToken = new Map<string, number>();
  // Relay ids are unique for the life of this server, so a late answer never lands on a
  // newer question.
  let relayed = 0;
  const keyOf = (tokenId: string, id: string) => `${tokenId}\u0000${id}`;
  const cancelAll = (tokenId: string | undefined, why: string): void => {
    for (const entry of [...pending.values()]) {
      if (tokenId === undefined || entry.tokenId === tokenId) entry.settle(CANCEL, why);
    }
  };
  const stopListening = options.tokens.onRevoked((session) => {
    modesByToken.delete(session.tokenId);
    cancelAll(session.tokenId, 'token revoked');
  });

  return {
    remember(tokenId, initializeParams) {
      const modes = declaredModes(initializeParams);
      modesByToken.delete(tokenId);
      if (modes === 0) return;
      if (modesByToken.size >= maxRemembered) {
        modesByToken.delete(modesByToken.keys().next().value as string);
      }
      modesByToken.set(tokenId, modes);
    },

    modesOf(tokenId) {
      return modesByToken.get(tokenId) ?? 0;
    },

    elicitFor({ session, signal, stream, modes, target }) {
      const { tokenId } = session;
      // This call's questions still waiting, so its end can withdraw them.
      const waiting = new Set<Pending>();
      const elicit = async (request: ElicitationRequest): Promise<ElicitationAnswer> => {
        const params = relayedRequest(request);
        if (params === undefined || (modes & modeBit(params.mode)) === 0 || signal.aborted) {
          // Only the checked mode is logged: the rest is the upstream's, and may be anything.
          logger.debug(
            { mode: params?.mode ?? 'malformed' },
            'elicitation answered cancel: caller cannot answer',
          );
          return CANCEL;
        }
        const held = perToken.get(tokenId) ?? 0;
        if (held >= maxPerToken || pending.size >= maxPending) {
          logger.warn(
            { held, limit: maxPerToken },
            'elicitation answered cancel: too many pending',
          );
          return CANCEL;
        }
        relayed += 1;
        const id = `tutti-e-${relayed}`;
        const sent =
          params.mode === 'url' && params.elicitationId === undefined
            ? { ...params, elicitationId: id }
            : params;
        if (!stream.send({ jsonrpc: '2.0', id, method: 'elicitation/create', params: sent })) {
          return CANCEL;
        }
        const where = target();
        return new Promise<ElicitationAnswer>((resolve) => {
          const key = keyOf(tokenId, id);
          let timer: NodeJS.Timeout | undefined;
          let takeDown = (): void => undefined;
          let settled = false;
          const onAbort = (): void => entry.settle(CANCEL);
          const entry: Pending = {
            tokenId,
            mode: params.mode,
            settle(answer, why) {
              if (settled) return;
              settled = true;
              waiting.delete(entry);
              clearTimeout(timer);
              signal.removeEventListener('abort', onAbort);
              pending.delete(key);
              const left = (perToken.get(tokenId) ?? 1) - 1;
              if (left > 0) perToken.set(tokenId, left);
              else perToken.delete(tokenId);
              takeDown();
              if (why !== undefined) {
                // Tells the agent to stop asking the person; it may answer nothing now.
                stream.send({
                  jsonrpc: '2.0',
                  method: 'notifications/cancelled',
                  params: { requestId: id, reason: why },
                });
                logger.debug({ relayId: id, why }, 'elicitation answered cancel');
              }
              resolve(answer);
            },
          };
          pending.set(key, entry);
          waiting.add(entry);
          perToken.set(tokenId, held + 1);
          takeDown = board.relay({
            agentSessionId: session.agentSessionId,
            connector: where?.connector ?? '',
            tool: where?.tool ?? '',
            request: sent,
            since: Date.now(),
          });
          timer = setTimeout(() => entry.settle(CANCEL, 'no answer in time'), options.timeoutMs);
          timer.unref();
          signal.addEventListener('abort', onAbort);
        });
      };
      return Object.assign(elicit, {
        end(why: string) {
          for (const entry of [...waiting]) entry.settle(CANCEL, why);
        },
      });
    },

    answer(tokenId, response) {
      if (typeof response.id !== 'string') return false;
      const entry = pending.get(keyOf(tokenId, response.id));
      if (entry === undefined) return false;
      const answer =
        response.result === undefined
          ? undefined
          : elicitationAnswerOf(response.result, entry.mode);
      if (answer === undefined) logger.debug({ relayId: response.id }, 'elicitation not answered');
      entry.settle(answer ?? CANCEL);
      return true;
    },

    close() {
      stopListening();
      cancelAll(undefined, 'server closing');
      modesByToken.clear();
    },
  };
}
