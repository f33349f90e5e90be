/**
 * Turns of daemon-driven sessions, normalized across providers: the prompt a turn takes,
 * the events it streams, and what a provider's live session is given to run one.
 */
import { z } from 'zod';

/** How a turn ended. */
export type StopReason = 'end_turn' | 'cancelled' | 'max_tokens' | 'refusal' | 'error';

/** Where a tool call is. */
export type ToolCallStatus = 'pending' | 'in_progress' | 'completed' | 'failed';

/** What a session lets its agent's tools do without asking. */
export type PermissionMode = 'ask' | 'allow-connector';

/** The answer to a permission request. */
export type PermissionOutcome = 'allow' | 'deny';

/** One event of a turn, as the turn API streams it. */
export type TurnEvent =
  | { readonly type: 'text'; readonly text: string }
  | {
      readonly type: 'tool_call';
      readonly callId: string;
      /** The MCP server of the tool (`connector` for connector tools); '' for the agent's own. */
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

/** A tool an agent asks to run. */
export interface PermissionAsk {
  readonly server: string;
  readonly tool: string;
}

/** What a provider's live session is given for one turn. */
export interface TurnSink {
  /** Streams one event of the turn (text deltas, tool calls and results). */
  emit(event: Extract<TurnEvent, { type: 'text' | 'tool_call' | 'tool_result' }>): void;
  /**
   * Asks whether a tool may run; the session's permission mode answers connector tools in
   * `allow-connector` mode, the host answers the rest (or the answer times out as `deny`).
   */
  permission(ask: PermissionAsk): Promise<PermissionOutcome>;
  /** Aborts when the turn is cancelled: the provider interrupts its agent. */
  readonly signal: AbortSignal;
  readonly permissions: PermissionMode;
}

/** The tool a name as agents show it stands for: `mcp__<server>__<tool>`, `<server>_<tool>`. */
export function toolOf(name: string, servers: readonly string[] = ['connector']): PermissionAsk {
  const mcp = /^mcp__(.+?)__(.+)$/.exec(name);
  if (mcp) return { server: mcp[1]!, tool: mcp[2]! };
  for (const server of servers) {
    for (const separator of ['_', '/', '.']) {
      if (name.startsWith(`${server}${separator}`)) {
        return { server, tool: name.slice(server.length + 1) };
      }
    }
  }
  return { server: '', tool: name };
}

/** The text of a prompt's text blocks, joined. */
export function promptText(prompt: readonly PromptBlock[]): string {
  return prompt
    .filter((block): block is Extract<PromptBlock, { type: 'text' }> => block.type === 'text')
    .map((block) => block.text)
    .join('\n\n');
}
