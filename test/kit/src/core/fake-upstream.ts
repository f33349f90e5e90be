/**
 * In-process fake upstream connectors for the server tests: an {@link UpstreamClient}
 * whose tools are plain functions, recording every call and every abort it sees. A tool
 * gets the call's options too, so it can ask the person (`options.elicit`) and tell its
 * progress (`options.onProgress`) as a real upstream does through the upstream layer.
 */
import { TuttiError } from '@tutti/core/client';
import type {
  CallSignal,
  ElicitationAnswer,
  ElicitationRequest,
  UpstreamCallOptions,
  UpstreamCallResult,
  UpstreamClient,
  UpstreamTool,
} from '@tutti/core/internal';

export type { ElicitationAnswer, ElicitationRequest };

/** One tool of a fake upstream: its definition and what a call does. */
export interface FakeTool {
  readonly tool: UpstreamTool;
  readonly run: (
    args: Record<string, unknown> | undefined,
    signal: CallSignal,
    options: UpstreamCallOptions,
  ) => Promise<UpstreamCallResult>;
}

/** One call the fake saw. */
export interface FakeCall {
  readonly name: string;
  readonly args: Record<string, unknown> | undefined;
  readonly signal: CallSignal;
  /** What the daemon added to the request's `_meta` (trace context). */
  readonly meta?: Readonly<Record<string, string>>;
  /** Whether the call came with someone to ask and someone to tell progress. */
  readonly canElicit: boolean;
  readonly hearsProgress: boolean;
}

/** A fake upstream client and what it observed. */
export interface FakeUpstream extends UpstreamClient {
  readonly tools: readonly UpstreamTool[];
  readonly calls: FakeCall[];
  /** Resolves with the next call of `name` (already made ones count). */
  called(name: string): Promise<FakeCall>;
}

/** Creates a fake upstream serving `tools`. */
export function createFakeUpstream(tools: readonly FakeTool[]): FakeUpstream {
  const calls: FakeCall[] = [];
  const waiters: { name: string; resolve: (call: FakeCall) => void }[] = [];
  return {
    tools: tools.map((entry) => entry.tool),
    calls,
    called(name) {
      const seen = calls.find((call) => call.name === name);
      if (seen) return Promise.resolve(seen);
      return new Promise((resolve) => waiters.push({ name, resolve }));
    },
    async callTool(name, args, options?: UpstreamCallOptions) {
      const signal: CallSignal = options?.signal ?? new AbortController().signal;
      const call = {
        name,
        args,
        signal,
        ...(options?.meta && { meta: options.meta }),
        canElicit: options?.elicit !== undefined,
        hearsProgress: options?.onProgress !== undefined,
      };
      calls.push(call);
      for (const waiter of waiters.filter((w) => w.name === name)) {
        waiters.splice(waiters.indexOf(waiter), 1);
        waiter.resolve(call);
      }
      const entry = tools.find((candidate) => candidate.tool.name === name);
      if (!entry) throw new Error(`fake upstream has no tool ${name}`);
      return entry.run(args, signal, options ?? {});
    },
  };
}

/**
 * Asks the person as the upstream layer does (connector-route.ts): through
 * `options.elicit`, with `cancel` when there is nobody to ask or the asking fails.
 */
export async function ask(
  options: UpstreamCallOptions,
  request: ElicitationRequest,
): Promise<ElicitationAnswer> {
  if (!options.elicit) return { action: 'cancel' };
  return options.elicit(request).catch(() => ({ action: 'cancel' }) as const);
}

/** A text content result. */
export function text(value: string): UpstreamCallResult {
  return { content: [{ type: 'text', text: value }] };
}

/**
 * Waits until `signal` aborts, then rejects as the `UpstreamClient` contract asks of a
 * cancelled call (as the real upstream layer does).
 */
export function untilAborted(signal: CallSignal, tool: string): Promise<never> {
  return new Promise((_, reject) => {
    const cancelled = () =>
      reject(new TuttiError('TUTTI_ERR_UPSTREAM_CANCELLED', { target: 'fake', tool }));
    signal.addEventListener('abort', cancelled, { once: true });
  });
}

/** The `gh` connector of the tests: search, a tool error, a crash and a slow call. */
export function githubUpstream(): FakeUpstream {
  return createFakeUpstream([
    {
      tool: {
        name: 'search',
        description: 'Search issues',
        inputSchema: {
          type: 'object',
          properties: { query: { type: 'string' } },
          required: ['query'],
        },
      },
      run: async (args) => ({
        content: [{ type: 'text', text: `found:${String(args?.query)}` }],
        structuredContent: { hits: [String(args?.query)] },
      }),
    },
    {
      tool: { name: 'fail', inputSchema: { type: 'object' } },
      run: async () => ({ content: [{ type: 'text', text: 'rate limited' }], isError: true }),
    },
    {
      tool: { name: 'crash', inputSchema: { type: 'object' } },
      run: async () => {
        throw new Error('upstream transport closed:\n socket hang up');
      },
    },
    {
      tool: { name: 'slow', inputSchema: { type: 'object' } },
      run: (_args, signal) => untilAborted(signal, 'slow'),
    },
  ]);
}

/** The `notes` connector: one tool whose arguments are mirrored into `Mcp-Param-*` headers. */
export function notesUpstream(): FakeUpstream {
  return createFakeUpstream([
    {
      tool: {
        name: 'add',
        description: 'Add a note',
        inputSchema: {
          type: 'object',
          properties: {
            title: { type: 'string', 'x-mcp-header': 'Title' },
            priority: { type: 'integer', 'x-mcp-header': 'Priority' },
            body: { type: 'string' },
          },
          required: ['title'],
        },
      },
      run: async (args) => text(`added:${String(args?.title)}:${String(args?.priority ?? '-')}`),
    },
  ]);
}

/**
 * The `ask` connector: `confirm` asks a `{confirm: boolean}` form and deletes on a yes,
 * `visit` asks the person to open a URL, `count` tells three progress steps then answers.
 * Each answer says what the person did, so a test sees what reached the upstream.
 */
export function askingUpstream(): FakeUpstream {
  return createFakeUpstream([
    {
      tool: { name: 'confirm', inputSchema: { type: 'object' } },
      run: async (_args, _signal, options) => {
        const answer = await ask(options, {
          mode: 'form',
          message: 'Delete 40 files?',
          requestedSchema: {
            type: 'object',
            properties: { confirm: { type: 'boolean' } },
            required: ['confirm'],
          },
        });
        const deleted = answer.action === 'accept' && answer.content?.confirm === true;
        return {
          content: [{ type: 'text', text: `deleted:${deleted}` }],
          structuredContent: {
            action: answer.action,
            ...(answer.content && { content: answer.content }),
          },
        };
      },
    },
    {
      tool: { name: 'visit', inputSchema: { type: 'object' } },
      run: async (_args, _signal, options) => {
        const answer = await ask(options, {
          mode: 'url',
          message: 'Sign in to the tracker',
          url: 'https://tracker.example/login?state=abc',
          elicitationId: 'login-1',
        });
        return text(`visited:${answer.action}`);
      },
    },
    {
      tool: { name: 'count', inputSchema: { type: 'object' } },
      run: async (_args, _signal, options) => {
        for (let step = 1; step <= 3; step += 1) {
          options.onProgress?.({ progress: step, total: 3, message: `step ${step}` });
          await new Promise((resolve) => setImmediate(resolve));
        }
        return text('counted');
      },
    },
  ]);
}

/** A `files` upstream that asks the person, and every answer it got, in order. */
export interface AskingUpstream extends FakeUpstream {
  readonly answers: ElicitationAnswer[];
}

/**
 * Asks `request` through the call's `elicit` (absent: `cancel`, as the upstream layer
 * answers) and records the answer; a cancelled call rejects as the contract says.
 */
async function askAndRecord(
  request: ElicitationRequest,
  signal: CallSignal,
  options: UpstreamCallOptions,
  answers: ElicitationAnswer[],
  tool: string,
): Promise<ElicitationAnswer> {
  const asked = options.elicit
    ? options.elicit(request)
    : Promise.resolve<ElicitationAnswer>({ action: 'cancel' });
  const answer = await Promise.race([asked, untilAborted(signal, tool)]);
  answers.push(answer);
  return answer;
}

const CONFIRM_SCHEMA = {
  type: 'object',
  properties: { confirm: { type: 'boolean', description: 'Delete them?' } },
  required: ['confirm'],
} as const;

/**
 * The `files` connector: `delete` asks a `{confirm: boolean}` form and answers
 * `deleted:true` only when accepted with `confirm: true`; `rename` asks twice (a form for
 * the new name, then a confirmation); `login` asks in URL mode.
 */
export function filesUpstream(): AskingUpstream {
  const answers: ElicitationAnswer[] = [];
  const upstream = createFakeUpstream([
    {
      tool: {
        name: 'delete',
        inputSchema: { type: 'object', properties: { path: { type: 'string' } } },
      },
      run: async (args, signal, options) => {
        const answer = await askAndRecord(
          {
            mode: 'form',
            message: `Delete ${String(args?.path)}?`,
            requestedSchema: CONFIRM_SCHEMA,
          },
          signal,
          options,
          answers,
          'delete',
        );
        const deleted = answer.action === 'accept' && answer.content?.confirm === true;
        return {
          content: [{ type: 'text', text: `deleted:${deleted}:${answer.action}` }],
          structuredContent: { deleted, action: answer.action },
        };
      },
    },
    {
      tool: { name: 'rename', inputSchema: { type: 'object' } },
      run: async (_args, signal, options) => {
        const named = await askAndRecord(
          {
            mode: 'form',
            message: 'New name?',
            requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
          },
          signal,
          options,
          answers,
          'rename',
        );
        if (named.action !== 'accept') return text(`renamed:false:${named.action}`);
        const confirmed = await askAndRecord(
          {
            mode: 'form',
            message: `Rename to ${String(named.content?.name)}?`,
            requestedSchema: CONFIRM_SCHEMA,
          },
          signal,
          options,
          answers,
          'rename',
        );
        return text(`renamed:${String(named.content?.name)}:${confirmed.action}`);
      },
    },
    {
      tool: { name: 'login', inputSchema: { type: 'object' } },
      run: async (_args, signal, options) => {
        const answer = await askAndRecord(
          {
            mode: 'url',
            message: 'Sign in',
            url: 'https://example.test/login',
            elicitationId: 'login-1',
          },
          signal,
          options,
          answers,
          'login',
        );
        return text(`login:${answer.action}`);
      },
    },
  ]);
  return Object.assign(upstream, { answers });
}
