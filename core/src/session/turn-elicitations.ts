/**
 * The elicitations of one turn: an MCP server's question the agent relays to the one who
 * drives it goes to the host as an `elicitation` event and waits for its answer. What the
 * agent relays is taken as hostile: only a well-formed form or `http(s)` URL request of
 * bounded size is relayed (anything else is answered `cancel` at once), and only these
 * members reach the host. It names the connector and tool only when the daemon can prove
 * them from its own board of the elicitations the `connector` server relayed to this
 * session's agent, never from what the agent says. At most {@link MAX_WAITING_ELICITATIONS}
 * wait at once; one more is answered `cancel` at once. Nobody answering within the timeout,
 * the agent withdrawing the question, or the turn ending all answer `cancel`.
 */
import { randomUUID } from 'node:crypto';
import type {
  ElicitationAnswer,
  ElicitationRequest,
  RelayedElicitation,
} from '../contracts/elicitation.js';
import type { JsonSchemaObject } from '../contracts/json.js';
import { TuttiError } from '../errors/index.js';
import type { ElicitationAsk, TurnEvent } from './turn-types.js';

/** Longest message relayed, in characters. */
export const MAX_ELICITATION_MESSAGE = 16_384;
/** Largest requested schema relayed, as JSON characters. */
export const MAX_ELICITATION_SCHEMA = 64 * 1024;
/** Longest URL (and URL-mode elicitation id) relayed. */
const MAX_URL = 8_192;
/**
 * Most questions one turn keeps waiting for the host. Each costs a map entry, a timer and
 * a host event of up to a 16 KiB message and a 64 KiB schema, and the agent relaying them
 * is not trusted: beyond this a new question is answered `cancel` at once and not shown.
 * An honest tool call waits on one question at a time, so a few calls running side by side
 * stay well below it.
 */
export const MAX_WAITING_ELICITATIONS = 16;

const CANCEL: ElicitationAnswer = Object.freeze({ action: 'cancel' });

/** An elicitation of a turn waiting for the host. */
export interface WaitingElicitation {
  readonly requestId: string;
  readonly server: string;
  readonly connector?: string;
  readonly tool?: string;
  readonly request: ElicitationRequest;
  /** When the host was asked (ms since the epoch). */
  readonly since: number;
  /** The board's entry it was proven to be. */
  readonly relayed?: RelayedElicitation;
}

/** What a turn's elicitations need. */
export interface TurnElicitationOptions {
  /** How long one waits for the host before it is cancelled (the permission timeout). */
  readonly timeoutMs: number;
  /** Names the provider in the timeout's error. */
  readonly provider: string;
  /** The elicitations the `connector` server relayed to this session's agent, oldest first. */
  readonly relayed: () => readonly RelayedElicitation[];
  /** Streams an event of the turn. */
  readonly emit: (event: TurnEvent) => void;
}

/** The waiting elicitations of one turn; see the module doc. */
export class TurnElicitations {
  readonly #waiting = new Map<
    string,
    { readonly entry: WaitingElicitation; settle(answer: ElicitationAnswer): void }
  >();
  #closed = false;

  constructor(private readonly options: TurnElicitationOptions) {}

  /** Relays `ask` to the host; resolves with the answer the agent hands back. */
  ask(ask: ElicitationAsk): Promise<ElicitationAnswer> {
    const request = relayable(ask.request);
    if (this.#closed || !request || ask.signal?.aborted) return Promise.resolve(CANCEL);
    if (this.#waiting.size >= MAX_WAITING_ELICITATIONS) return Promise.resolve(CANCEL);
    const server = typeof ask.server === 'string' ? ask.server.slice(0, 256) : '';
    const relayed = server === 'connector' ? proven(this.options.relayed(), request) : undefined;
    const entry: WaitingElicitation = {
      requestId: randomUUID(),
      server,
      ...(relayed && { connector: relayed.connector, tool: relayed.tool, relayed }),
      request,
      since: Date.now(),
    };
    const { requestId } = entry;
    return new Promise<ElicitationAnswer>((resolve) => {
      const settle = (answer: ElicitationAnswer) => {
        if (!this.#waiting.delete(requestId)) return;
        clearTimeout(timer);
        ask.signal?.removeEventListener('abort', withdrawn);
        resolve(answer);
      };
      const withdrawn = () => settle(CANCEL);
      const timer = setTimeout(() => {
        if (!this.#waiting.has(requestId)) return;
        settle(CANCEL);
        const error = new TuttiError('TUTTI_ERR_TURN_ELICITATION_TIMEOUT', {
          provider: this.options.provider,
          server: server || 'unnamed',
          ms: this.options.timeoutMs,
        });
        this.options.emit({ type: 'error', code: error.code, message: error.message });
      }, this.options.timeoutMs);
      timer.unref();
      ask.signal?.addEventListener('abort', withdrawn, { once: true });
      this.#waiting.set(requestId, { entry, settle });
      this.options.emit({
        type: 'elicitation',
        requestId,
        server,
        ...(entry.connector !== undefined && { connector: entry.connector, tool: entry.tool }),
        mode: request.mode,
        message: request.message,
        ...(request.requestedSchema && { requestedSchema: request.requestedSchema }),
        ...(request.url !== undefined && { url: request.url }),
      });
    });
  }

  /**
   * Hands the host's answer to the agent; false when no elicitation of that id waits.
   * Content goes only with `accept` of a form.
   */
  answer(requestId: string, answer: ElicitationAnswer): boolean {
    const waiting = this.#waiting.get(requestId);
    if (!waiting) return false;
    const form = waiting.entry.request.mode === 'form';
    waiting.settle(
      answer.action === 'accept' && form && answer.content
        ? { action: 'accept', content: { ...answer.content } }
        : { action: answer.action },
    );
    return true;
  }

  /** The elicitations waiting for the host, oldest first. */
  waiting(): WaitingElicitation[] {
    return [...this.#waiting.values()].map(({ entry }) => entry);
  }

  /** Cancels every waiting elicitation, and each one asked later: the turn is over. */
  close(): void {
    this.#closed = true;
    for (const { settle } of [...this.#waiting.values()]) settle(CANCEL);
  }
}

/** `request` reduced to the members the daemon relays, or undefined when it is not one. */
function relayable(request: ElicitationRequest | undefined): ElicitationRequest | undefined {
  if (!request || typeof request !== 'object') return undefined;
  const { mode, message } = request as { mode?: unknown; message?: unknown };
  if (typeof message !== 'string' || message.length > MAX_ELICITATION_MESSAGE) return undefined;
  if (mode === 'form') {
    const schema = request.requestedSchema;
    if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return undefined;
    if (schema.type !== 'object') return undefined;
    const json = jsonOf(schema);
    if (json === undefined || json.length > MAX_ELICITATION_SCHEMA) return undefined;
    return { mode, message, requestedSchema: JSON.parse(json) as JsonSchemaObject };
  }
  if (mode === 'url') {
    const { url, elicitationId } = request as { url?: unknown; elicitationId?: unknown };
    if (typeof url !== 'string' || url.length > MAX_URL || !isWebUrl(url)) return undefined;
    if (
      elicitationId !== undefined &&
      (typeof elicitationId !== 'string' || elicitationId.length > MAX_URL)
    ) {
      return undefined;
    }
    return { mode, message, url, ...(elicitationId !== undefined && { elicitationId }) };
  }
  return undefined;
}

/** True for an absolute `http:` or `https:` URL: nothing else is handed to a person to open. */
function isWebUrl(text: string): boolean {
  try {
    const { protocol } = new URL(text);
    return protocol === 'https:' || protocol === 'http:';
  } catch {
    return false;
  }
}

/** `value` as JSON, or undefined when it is not serializable (a cycle, a BigInt). */
function jsonOf(value: unknown): string | undefined {
  try {
    return JSON.stringify(value);
  } catch {
    return undefined;
  }
}

/** `value` as JSON with sorted keys, so two equal schemas compare equal whatever their order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, member]) => member !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, member]) => `${JSON.stringify(key)}:${canonical(member)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * The board's entry the agent's request is: the only one pending for the session that asks
 * the same (mode, message, schema, URL); undefined when none or several do. A lone entry is
 * no proof by itself: the agent may be relaying another server's question while the
 * `connector` server waits on one of its own.
 */
function proven(
  pending: readonly RelayedElicitation[],
  request: ElicitationRequest,
): RelayedElicitation | undefined {
  const key = canonical([request.mode, request.message, request.requestedSchema, request.url]);
  const same = pending.filter(
    (entry) =>
      canonical([
        entry.request.mode,
        entry.request.message,
        entry.request.requestedSchema,
        entry.request.url,
      ]) === key,
  );
  return same.length === 1 ? same[0] : undefined;
}
