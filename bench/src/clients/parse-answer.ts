/** Reads one JSON-RPC answer from an HTTP response body, JSON or SSE. */

/** An HTTP answer as the raw clients read it. */
export interface HttpAnswer {
  readonly status: number;
  readonly type: string;
  readonly text: string;
}

/** One JSON-RPC response. */
export interface RpcMessage {
  readonly id?: unknown;
  readonly result?: unknown;
  readonly error?: { readonly code: number; readonly message: string };
}

/** The JSON-RPC message with `id` in `answer`; throws on errors. */
export function parseAnswer(answer: HttpAnswer, id: number | string, what: string): RpcMessage {
  if (answer.status !== 200) {
    throw new Error(`${what}: HTTP ${answer.status} ${answer.text.slice(0, 200)}`);
  }
  let message: RpcMessage | undefined;
  if (answer.type.startsWith('text/event-stream')) {
    for (const line of answer.text.split('\n')) {
      if (!line.startsWith('data:')) continue;
      const candidate = JSON.parse(line.slice(5)) as RpcMessage;
      if (candidate.id === id) {
        message = candidate;
        break;
      }
    }
  } else {
    message = JSON.parse(answer.text) as RpcMessage;
  }
  if (!message) throw new Error(`${what}: no answer with id ${id} in ${answer.text.slice(0, 200)}`);
  if (message.error) throw new Error(`${what}: ${message.error.code} ${message.error.message}`);
  return message;
}
