/**
 * What a correct server may answer to a hostile request, as predicates that return the
 * broken rule (or undefined): never a 5xx, a hang or a reset; a 2xx only for authorized
 * requests; MCP answers are JSON-RPC (or a plain 404 off the endpoint); control answers
 * are `{ error: { code, message } }`.
 */
import type { HostileRequest } from './hostile-requests.js';
import type { RawAnswer } from './raw-http.js';

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The JSON-RPC message of a JSON body or of a one-event SSE body. */
function rpcMessage(answer: RawAnswer): Record<string, unknown> | undefined {
  const text = answer.contentType?.startsWith('text/event-stream')
    ? answer.body
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
        .join('')
    : answer.body;
  const value = parse(text);
  return value !== null && typeof value === 'object' && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined;
}

function isRpcError(message: Record<string, unknown> | undefined): boolean {
  const error = message?.error as { code?: unknown; message?: unknown } | undefined;
  return (
    message?.jsonrpc === '2.0' &&
    typeof error?.code === 'number' &&
    Number.isInteger(error.code) &&
    typeof error.message === 'string'
  );
}

function common(request: HostileRequest, answer: RawAnswer): string | undefined {
  if (answer.failure !== undefined) return `no answer (${answer.failure})`;
  const status = answer.status ?? 0;
  if (status >= 500 || status < 200) return `status ${status}`;
  if (status < 300 && !request.authorized) return `status ${status} without the right token`;
  if (status >= 300 && status < 400) return `status ${status}`;
  return undefined;
}

/**
 * Node's HTTP server itself refuses an HTTP/1.1 request without a Host header with an
 * empty 400, before the application sees it.
 */
function refusedByNode(request: HostileRequest, answer: RawAnswer): boolean {
  return request.headers.host === undefined && answer.status === 400 && answer.body === '';
}

/** The broken rule of an answer of the MCP endpoint, if any. */
export function mcpAnswerProblem(request: HostileRequest, answer: RawAnswer): string | undefined {
  const broken = common(request, answer);
  if (broken) return broken;
  const status = answer.status!;
  const message = rpcMessage(answer);
  if (request.taken) {
    return status === 202 && answer.body === ''
      ? undefined
      : `response not taken: ${status} ${answer.body.slice(0, 200)}`;
  }
  if (request.refusedWith !== undefined) {
    const code = (message?.error as { code?: unknown } | undefined)?.code;
    return isRpcError(message) && code === request.refusedWith
      ? undefined
      : `not refused with ${request.refusedWith}: ${status} ${answer.body.slice(0, 200)}`;
  }
  if (request.valid) {
    return status === 200 && message?.jsonrpc === '2.0' && 'result' in message
      ? undefined
      : `valid request answered ${status} ${answer.body.slice(0, 200)}`;
  }
  if (status === 202) return answer.body === '' ? undefined : 'a 202 with a body';
  if (status === 200) {
    return message?.jsonrpc === '2.0' && ('result' in message || isRpcError(message))
      ? undefined
      : `a 200 that is no JSON-RPC response: ${answer.body.slice(0, 200)}`;
  }
  if (request.method === 'HEAD' || refusedByNode(request, answer)) return undefined;
  if (status === 404 && answer.body === 'Not Found') return undefined;
  return isRpcError(message)
    ? undefined
    : `a ${status} that is no JSON-RPC error: ${answer.body.slice(0, 200)}`;
}

/** The broken rule of an answer of the control API, if any. */
export function controlAnswerProblem(
  request: HostileRequest,
  answer: RawAnswer,
): string | undefined {
  const page = dashboardPageProblem(request, answer);
  if (page !== 'not a page request') return page;
  const broken = common(request, answer);
  if (broken) return broken;
  const status = answer.status!;
  if (status < 300 || request.method === 'HEAD' || refusedByNode(request, answer)) return undefined;
  const error = (parse(answer.body) as { error?: { code?: unknown; message?: unknown } })?.error;
  return typeof error?.code === 'string' &&
    error.code.startsWith('TUTTI_ERR_') &&
    typeof error.message === 'string'
    ? undefined
    : `a ${status} without a tutti error body: ${answer.body.slice(0, 200)}`;
}

/**
 * The dashboard's page (`/`, `/assets/*`) is public on the control port: it holds no
 * token, and everything it shows comes from the API its session token opens. So a GET or HEAD of
 * it may answer 200 without the control token (or 503 when the page is not built, 404 for
 * an asset that does not exist), but never with the control token in it.
 */
function dashboardPageProblem(request: HostileRequest, answer: RawAnswer): string | undefined {
  const path = request.path.split('?')[0] ?? '';
  const isPage = path === '/' || /^\/assets\/[^/]*$/.test(path);
  if (!isPage || (request.method !== 'GET' && request.method !== 'HEAD')) {
    return 'not a page request';
  }
  if (answer.status === 200 || answer.status === 503 || answer.status === 404) {
    const token = /\S+$/.exec(request.headers.authorization ?? '')?.[0];
    return token && answer.body.includes(token)
      ? 'the page holds the token it was asked with'
      : undefined;
  }
  return 'not a page request';
}
