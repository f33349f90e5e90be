/**
 * Turns of daemon-driven sessions, normalized across providers: the prompt a turn takes,
 * the events it streams, and what a provider's live session is given to run one.
 */
import { z } from 'zod';
import type {
  ElicitationAnswer,
  ElicitationMode,
  ElicitationRequest,
} from '../contracts/elicitation.js';
import type { JsonSchemaObject } from '../contracts/json.js';

/** How a turn ended. */
export type StopReason = 'end_turn' | 'cancelled' | 'max_tokens' | 'refusal' | 'error';

/** Where a tool call is. */
export type ToolCallStatus = 'pending' | 'in_progress' | 'completed' | 'failed';

/**
 * What a session lets its agent's tools do without asking: `ask` (every tool call is
 * asked), `allow-connector` (tools the daemon proves are its `connector` server's run
 * unasked; everything else is asked), `agent` (the agent's own approval rules, as the user
 * set them; what it asks still reaches the host).
 */
export const permissionModeSchema = z.enum(['ask', 'allow-connector', 'agent']);

/** One permission mode (see {@link permissionModeSchema}). */
export type PermissionMode = z.infer<typeof permissionModeSchema>;

/** The answer to a permission request. */
export type PermissionOutcome = 'allow' | 'deny';

/** One event of a turn, as the turn API streams it. */
export type TurnEvent =
  | { readonly type: 'start'; readonly permissions: PermissionMode }
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'tool_call';
      readonly callId: string;
      /**
       * The MCP server of the tool: `connector` only when the daemon proved it (see
       * {@link ToolIdentity}); another server's name when the agent names it in a field of its
       * own; '' otherwise (the agent's own tools, and calls it names only in text).
       */
      readonly server: string;
      readonly tool: string;
      readonly status: ToolCallStatus;
    }
  | { readonly type: 'tool_result'; readonly callId: string; readonly isError: boolean }
  | {
      readonly type: 'permission';
      readonly requestId: string;
      readonly server: string;
      readonly tool: string;
      readonly options: readonly PermissionOutcome[];
    }
  | {
      readonly type: 'elicitation';
      readonly requestId: string;
      /** The MCP server that asks, as the agent names it in a field of its own. */
      readonly server: string;
      /**
       * The connector whose upstream asks and the local tool being called: only when the
       * daemon proved it (the agent names server `connector` and the daemon's own board of
       * relayed elicitations has exactly one for this session that fits).
       */
      readonly connector?: string;
      readonly tool?: string;
      readonly mode: ElicitationMode;
      /** What the person is asked, as the agent relayed it. */
      readonly message: string;
      readonly requestedSchema?: JsonSchemaObject;
      readonly url?: string;
    }
  | { readonly type: 'end'; readonly stopReason: StopReason }
  | { readonly type: 'error'; readonly code: string; readonly message: string };

/** Zod schema of a prompt: a text, or ACP content blocks (text and image). */
export const promptSchema = z.union([
  z.string().min(1),
  z
    .array(
      z.discriminatedUnion('type', [
        z.object({ type: z.literal('text'), text: z.string() }).loose(),
        z
          .object({
            type: z.literal('image'),
            data: z.string().min(1),
            mimeType: z.string().min(1),
          })
          .loose(),
      ]),
    )
    .min(1),
]);

/** One block of a prompt. */
export type PromptBlock =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly data: string; readonly mimeType: string };

/**
 * What an agent says a tool call is, taken only from a field the agent fills itself (its own
 * tool name), never from a title, a description or the tool's input: those are text a model
 * wrote. The turn decides from it whether the call is a `connector` tool.
 */
export type ToolIdentity =
  /** The agent names the MCP server and the tool in fields of their own (Codex). */
  | { readonly server: string; readonly tool: string }
  /** The agent's own name of the tool, in its naming form (`mcp__connector__notes_add`, `Bash`). */
  | { readonly name: string }
  /** Nothing the agent fills itself: `label` (a title) is shown, and proves nothing. */
  | { readonly label: string };

/** A tool an agent asks to run. */
export interface PermissionAsk {
  /** The call it belongs to, when the agent announced it: its label, fixed then, holds. */
  readonly callId?: string;
  readonly identity: ToolIdentity;
}

/** An MCP server's question an agent relays to the one who drives it. */
export interface ElicitationAsk {
  /** The MCP server that asks, as the agent names it in a field of its own. */
  readonly server: string;
  /** What it asks: only these members reach the host. */
  readonly request: ElicitationRequest;
  /** Aborts when the agent withdraws the question: the turn stops waiting for it. */
  readonly signal?: AbortSignal;
}

/** An event a provider streams; the turn labels its tool calls (see {@link ToolIdentity}). */
export type ProviderTurnEvent =
  | Extract<TurnEvent, { type: 'text' | 'tool_result' }>
  | {
      readonly type: 'tool_call';
      readonly callId: string;
      readonly identity: ToolIdentity;
      readonly status: ToolCallStatus;
    };

/** What a provider's live session is given for one turn. */
export interface TurnSink {
  /**
   * Streams one event of the turn (text deltas, tool calls and results). A call's label is
   * fixed by the first event of its id: later ones cannot change it.
   */
  emit(event: ProviderTurnEvent): void;
  /**
   * Asks whether a tool may run: in `allow-connector` mode the turn answers calls it proves
   * are `connector` tools; the host answers the rest (or the answer times out as `deny`).
   */
  permission(ask: PermissionAsk): Promise<PermissionOutcome>;
  /**
   * Relays an MCP server's elicitation to the host as an `elicitation` event and resolves
   * with its answer; `cancel` when nobody answers within the permission timeout, the turn is
   * cancelled or ends, the agent withdraws it, or the request is not one the daemon relays.
   */
  elicit(ask: ElicitationAsk): Promise<ElicitationAnswer>;
  /** Aborts when the turn is cancelled: the provider interrupts its agent. */
  readonly signal: AbortSignal;
  readonly permissions: PermissionMode;
}

/** The text of a prompt's text blocks, joined. */
export function promptText(prompt: readonly PromptBlock[]): string {
  return prompt
    .filter((block): block is Extract<PromptBlock, { type: 'text' }> => block.type === 'text')
    .map((block) => block.text)
    .join('\n\n');
}
