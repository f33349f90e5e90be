/**
 * Upstream calls parked between the legs of a 2026-07-28 multi round-trip `tools/call`.
 * A call whose caller declared elicitation runs under its own cancellation, followed by
 * the request (leg) waiting on it: when the upstream asks, the waiting leg is answered
 * `input_required` and the call stays parked, the upstream still waiting for its answer,
 * until the retry whose `requestState` verifies resumes it (request-state.ts). The retry
 * hands the answer up and waits for the call's next outcome under its own cancellation.
 * The upstream's progress goes to the leg waiting on the call, with that leg's own token;
 * none while parked. Parked calls are bounded per server and per token (over a bound the
 * upstream is answered `cancel` and the call goes on), and cancelled upstream when they
 * expire, when their token is revoked, and at shutdown. A call whose upstream ends while
 * parked leaves the board and the bounds at once; only its outcome is kept, for the retry
 * of its state, until the same expiry (as many as calls may park, per server and token).
 */
import type { TokenService, TokenSession } from '../auth/index.js';
import type {
  CallProgress,
  CallSignal,
  ElicitationAnswer,
  ElicitationMode,
  ElicitationRequest,
  RelayedElicitation,
  UpstreamCallResult,
} from '../contracts/index.js';
import { TuttiError } from '../errors/index.js';
import type { ObservedCall } from './call-observer.js';
import { CallCancellation } from './in-flight-calls.js';
import { CANCEL, elicitationAnswer, relayable } from './input-required.js';
import type { LegObservation } from './parked-observation.js';
import { argumentsDigest, invalidRequestState, type RequestStates } from './request-state.js';

/** What the leg waiting on a call is answered with. */
export type CallOutcome =
  | { readonly kind: 'result'; readonly result: UpstreamCallResult }
  | { readonly kind: 'error'; readonly error: unknown }
  | { readonly kind: 'input'; readonly request: ElicitationRequest; readonly state: string };

/** Told each progress report of the upstream call. */
export type ProgressListener = (progress: CallProgress) => void;

/** Why a parked call was cancelled upstream (its signal's reason). */
export type ParkedAbortCause = 'expired' | 'revoked' | 'shutdown';

/** Options of {@link createParkedCalls}. */
export interface ParkedCallsOptions {
  readonly states: RequestStates;
  readonly tokens: Pick<TokenService, 'onRevoked'>;
  /** Most calls parked at once, and per token. */
  readonly maxParked: number;
  readonly maxPerToken: number;
  /** How long a call stays parked before it is cancelled upstream (ms). */
  readonly ttlMs: number;
  /** Nesting limit of the arguments (as the calls' own check). */
  readonly maxArgumentDepth: number;
  /** The connector serving a local tool name (for {@link onRelay}). */
  readonly connectorOf: (tool: string) => string;
  /**
   * Told of each question relayed to a caller while its call is parked; the function it
   * returns is called once the question left (answered, expired, revoked, shutdown).
   */
  readonly onRelay?: (relayed: RelayedElicitation) => () => void;
  /** Clock of the states' expiry (ms since the epoch); `Date.now` by default. */
  readonly now?: () => number;
}

/** The call a first leg starts. */
export interface CallStart {
  readonly session: TokenSession;
  /** The local tool name and the arguments, as the request has them. */
  readonly tool: string;
  readonly args: unknown;
  /** The elicitation modes the caller declared (at least one). */
  readonly modes: ReadonlySet<ElicitationMode>;
  /**
   * Runs the upstream call with its own cancellation, who answers its questions and who
   * hears its progress (the leg waiting on the call, if it relays progress).
   */
  readonly run: (
    signal: CallSignal,
    elicit: (request: ElicitationRequest) => Promise<ElicitationAnswer>,
    onProgress: ProgressListener,
  ) => Promise<UpstreamCallResult>;
}

/** The parked calls of one server. */
export interface ParkedCalls {
  /**
   * Starts a call; resolves with its first outcome for the leg of `signal`, which is told
   * the upstream's progress meanwhile through `onProgress` (when it relays progress).
   */
  start(
    call: CallStart,
    signal: CallSignal,
    observed: ObservedCall | undefined,
    onProgress?: ProgressListener,
  ): Promise<CallOutcome>;
  /**
   * Resumes the parked call a retry's `requestState` names, with its answer; resolves with
   * the call's next outcome for the retry's leg (told the upstream's progress meanwhile
   * through `onProgress`, when it relays progress); the outcome of a call that ended while
   * parked at once. Throws -32602 for a state that does not verify for this token, tool
   * and arguments, or names no parked call.
   */
  resume(
    params: Record<string, unknown>,
    session: TokenSession,
    signal: CallSignal,
    leg: LegObservation | undefined,
    onProgress?: ProgressListener,
  ): Promise<CallOutcome>;
  /** Cancels every parked call upstream (shutdown). */
  close(): void;
  /** Calls parked now. */
  readonly size: number;
}

interface Waiter {
  readonly resolve: (outcome: CallOutcome) => void;
  readonly detach: () => void;
}

/** The upstream's open question: its mode and how to answer it. */
interface OpenQuestion {
  readonly mode: ElicitationMode;
  readonly answer: (answer: ElicitationAnswer) => void;
}

interface Call {
  readonly start: Omit<CallStart, 'run'>;
  readonly cancellation: CallCancellation;
  readonly observed: ObservedCall | undefined;
  digest?: string | undefined;
  /** The leg waiting for the next outcome (none while parked). */
  waiter?: Waiter | undefined;
  /** Where the upstream's progress goes: the waiting leg's relay (none while parked). */
  onProgress?: ProgressListener | undefined;
  /** The upstream's open question (set while parked). */
  question?: OpenQuestion | undefined;
  /** The id it is parked under, its expiry timer, its relay's removal. */
  parkedId?: string | undefined;
  timer?: NodeJS.Timeout | undefined;
  unrelay?: (() => void) | undefined;
}

/** A call whose upstream ended while parked: what the retry of its state gets. */
interface Ended {
  readonly tokenId: string;
  readonly tool: string;
  readonly observed: ObservedCall | undefined;
  readonly outcome: CallOutcome;
  /** Its parking's expiry, which it keeps. */
  readonly timer: NodeJS.Timeout;
}

/** Creates the parked calls of one server; `close()` ends them and the revocation watch. */
export function createParkedCalls(options: ParkedCallsOptions): ParkedCalls {
  const { states, maxParked, maxPerToken, ttlMs, maxArgumentDepth } = options;
  const now = options.now ?? Date.now;
  const parked = new Map<string, Call>();
  const perToken = new Map<string, number>();
  /** Calls that ended while parked, by the id they were parked under, oldest first. */
  const ended = new Map<string, Ended>();

  /** Tells the observer a call ended with no leg to answer (cancelled while parked). */
  const endUnanswered = (
    observed: ObservedCall | undefined,
    tool: string,
    outcome: CallOutcome,
  ): void => {
    const error =
      outcome.kind === 'error'
        ? outcome.error
        : new TuttiError('TUTTI_ERR_UPSTREAM_CANCELLED', {
            target: options.connectorOf(tool),
            tool,
          });
    observed?.answered({ error, resultBytes: 0, aborted: true });
  };

  /** Forgets the outcome of an ended call nobody retried (expired, revoked, bounded out). */
  const dropEnded = (id: string, entry: Ended): void => {
    ended.delete(id);
    clearTimeout(entry.timer);
    endUnanswered(entry.observed, entry.tool, entry.outcome);
  };

  /**
   * Keeps the outcome of `call`, which ended while parked, for the retry of its state: the
   * call leaves the board and the bounds now; the outcome stays until the parking expires,
   * at most `maxPerToken` of a token and `maxParked` in all (the oldest go first).
   */
  const keepEnded = (call: Call, outcome: CallOutcome): void => {
    const id = call.parkedId;
    const timer = call.timer;
    if (id === undefined || timer === undefined) {
      endUnanswered(call.observed, call.start.tool, outcome);
      return;
    }
    call.timer = undefined;
    call.question = undefined;
    unpark(call);
    const tokenId = call.start.session.tokenId;
    const ofToken = [...ended].filter(([, entry]) => entry.tokenId === tokenId);
    if (ofToken.length >= maxPerToken) dropEnded(...ofToken[0]!);
    const oldest = ended.entries().next();
    if (ended.size >= maxParked && !oldest.done) dropEnded(...oldest.value);
    ended.set(id, { tokenId, tool: call.start.tool, observed: call.observed, outcome, timer });
  };

  const deliver = (call: Call, outcome: CallOutcome): void => {
    const waiter = call.waiter;
    if (waiter) {
      call.waiter = undefined;
      call.onProgress = undefined;
      waiter.detach();
      waiter.resolve(outcome);
    } else if (call.parkedId !== undefined) keepEnded(call, outcome);
    else endUnanswered(call.observed, call.start.tool, outcome);
  };

  /**
   * Makes the leg of `signal` the one waiting on `call` and hearing its progress through
   * `onProgress`; its abort cancels the call.
   */
  const attach = (
    call: Call,
    signal: CallSignal,
    onProgress: ProgressListener | undefined,
  ): Promise<CallOutcome> =>
    new Promise((resolve) => {
      const abort = () => call.cancellation.abort(signal.reason);
      signal.addEventListener('abort', abort, { once: true });
      call.waiter = { resolve, detach: () => signal.removeEventListener('abort', abort) };
      call.onProgress = onProgress;
      if (signal.aborted) abort();
    });

  const unpark = (call: Call): void => {
    const id = call.parkedId;
    if (id === undefined) return;
    call.parkedId = undefined;
    parked.delete(id);
    const tokenId = call.start.session.tokenId;
    const count = (perToken.get(tokenId) ?? 1) - 1;
    if (count > 0) perToken.set(tokenId, count);
    else perToken.delete(tokenId);
    clearTimeout(call.timer);
    call.timer = undefined;
    call.unrelay?.();
    call.unrelay = undefined;
  };

  /** Cancels a parked call upstream; its end is told to the observer when it comes. */
  const evict = (call: Call, cause: ParkedAbortCause): void => {
    unpark(call);
    const question = call.question;
    call.question = undefined;
    call.cancellation.abort(cause);
    question?.answer(CANCEL);
  };

  /** The parking `id` expired: its call is cancelled upstream, or its outcome dropped. */
  const expire = (id: string): void => {
    const call = parked.get(id);
    const entry = ended.get(id);
    if (call) evict(call, 'expired');
    else if (entry) dropEnded(id, entry);
  };

  /** Parks `call` on the upstream's `request`: the waiting leg gets `input_required`. */
  const park = (call: Call, request: ElicitationRequest): Promise<ElicitationAnswer> => {
    const tokenId = call.start.session.tokenId;
    const tokenCount = perToken.get(tokenId) ?? 0;
    call.digest ??= argumentsDigest(call.start.args, maxArgumentDepth);
    if (
      call.waiter === undefined ||
      call.question !== undefined ||
      call.cancellation.aborted ||
      !call.start.modes.has(request.mode) ||
      !relayable(request) ||
      call.digest === undefined ||
      parked.size >= maxParked ||
      tokenCount >= maxPerToken
    ) {
      return Promise.resolve(CANCEL);
    }
    const id = states.newId();
    const binding = { tokenId, tool: call.start.tool, argumentsDigest: call.digest };
    const state = states.seal(binding, id, now() + ttlMs);
    parked.set(id, call);
    perToken.set(tokenId, tokenCount + 1);
    call.parkedId = id;
    call.timer = setTimeout(() => expire(id), ttlMs);
    call.timer.unref();
    call.unrelay = options.onRelay?.({
      agentSessionId: call.start.session.agentSessionId,
      connector: options.connectorOf(call.start.tool),
      tool: call.start.tool,
      request,
      since: now(),
    });
    return new Promise((resolve) => {
      call.question = { mode: request.mode, answer: resolve };
      deliver(call, { kind: 'input', request, state });
    });
  };

  const unsubscribe = options.tokens.onRevoked((session) => {
    for (const call of [...parked.values()]) {
      if (call.start.session.tokenId === session.tokenId) evict(call, 'revoked');
    }
    for (const [id, entry] of [...ended]) {
      if (entry.tokenId === session.tokenId) dropEnded(id, entry);
    }
  });

  return {
    start(start, signal, observed, onProgress) {
      const call: Call = {
        start: { session: start.session, tool: start.tool, args: start.args, modes: start.modes },
        cancellation: new CallCancellation(),
        observed,
      };
      const first = attach(call, signal, onProgress);
      start
        .run(
          call.cancellation,
          (request) => park(call, request),
          (progress) => call.onProgress?.(progress),
        )
        .then(
          (result) => deliver(call, { kind: 'result', result }),
          (error: unknown) => deliver(call, { kind: 'error', error }),
        );
      return first;
    },

    async resume(params, session, signal, leg, onProgress) {
      const tool = typeof params.name === 'string' ? params.name : '';
      const binding = {
        tokenId: session.tokenId,
        tool,
        argumentsDigest: argumentsDigest(params.arguments, maxArgumentDepth) ?? '',
      };
      const id = states.open(params.requestState, binding, now());
      // An upstream that ended while parked (it gave up waiting): its outcome, now.
      const entry = ended.get(id);
      if (entry && entry.tokenId === session.tokenId) {
        ended.delete(id);
        clearTimeout(entry.timer);
        leg?.bind(entry.observed);
        return entry.outcome;
      }
      const call = parked.get(id);
      if (!call || call.start.session.tokenId !== session.tokenId) throw invalidRequestState();
      unpark(call);
      leg?.bind(call.observed);
      const next = attach(call, signal, onProgress);
      const question = call.question;
      call.question = undefined;
      question?.answer(elicitationAnswer(params.inputResponses, question.mode));
      return next;
    },

    close() {
      unsubscribe();
      for (const call of [...parked.values()]) evict(call, 'shutdown');
      for (const [id, entry] of [...ended]) dropEnded(id, entry);
    },

    get size() {
      return parked.size;
    },
  };
}
