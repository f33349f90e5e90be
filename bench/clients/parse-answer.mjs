/** Reads one JSON-RPC answer from an HTTP response body, JSON or SSE. */

/** The JSON-RPC message with `id` in `answer` (`{ status, type, text }`); throws on errors. */
export function parseAnswer(answer, id, what) {
  if (answer.status !== 200) {
    throw new Error(`${what}: HTTP ${answer.status} ${answer.text.slice(0, 200)}`);
  }
  let message;
  if (answer.type.startsWith('text/event-stream')) {
    for (const line of answer.text.split('\n')) {
      if (!line.startsWith('data:')) continue;
      const candidate = JSON.parse(line.slice(5));
      if (candidate.id === id) {
        message = candidate;
        break;
      }
    }
  } else {
    message = JSON.parse(answer.text);
  }
  if (!message) throw new Error(`${what}: no answer with id ${id} in ${answer.text.slice(0, 200)}`);
  if (message.error) throw new Error(`${what}: ${message.error.code} ${message.error.message}`);
  return message;
}
