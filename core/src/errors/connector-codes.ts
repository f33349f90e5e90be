/**
 * The rows of the error table (`codes.ts`) for serving connectors: the registry and its
 * routes, the loopback `connector` server and its bearer tokens, the upstream MCP clients
 * and the CLI shims. Kept in their own file; `ERROR_CODES` holds them too and
 * `docs/errors.md` lists them with the rest.
 */
import type { ErrorSpec } from './error-spec.js';

export const CONNECTOR_ERROR_CODES = Object.freeze({
  TUTTI_ERR_REGISTRY_INVALID_KEY: {
    message:
      'Connector key "{key}" is not valid: use 1-32 lowercase letters, digits or "-", starting with a letter or digit (no "_").',
    status: 400,
  },
  TUTTI_ERR_REGISTRY_STALE_GENERATION: {
    message:
      'Connector "{key}" generation {generation} is at or below its fence {fence}: commit a newer generation.',
    status: 409,
  },
  TUTTI_ERR_REGISTRY_INVALID_TOOL: {
    message:
      'Connector "{key}" tool "{tool}" is not valid: {reason}. Fix the upstream tool definition.',
    status: 422,
  },
  TUTTI_ERR_REGISTRY_INVALID_SCHEMA: {
    message:
      'Connector "{key}" tool "{tool}" has an inputSchema that is not a valid JSON Schema object: {reason}. Fix the upstream tool definition.',
    status: 422,
  },
  TUTTI_ERR_REGISTRY_NAME_COLLISION: {
    message:
      'Connector "{key}" tools "{first}" and "{second}" both map to the local name "{localName}": rename one of them upstream.',
    status: 409,
  },
  TUTTI_ERR_REGISTRY_UNKNOWN_TOOL: {
    message: 'Tool "{localName}" is not served by the connector server: list tools again.',
    status: 404,
  },
  TUTTI_ERR_REGISTRY_ROUTE_FENCED: {
    message:
      'Connector "{key}" generation {generation} was retired while the call started: list tools again and retry.',
    status: 409,
  },
  TUTTI_ERR_REGISTRY_BAD_CURSOR: {
    message:
      'The tools/list cursor is not valid for the current tool list: list again from the start.',
    status: 400,
  },
  TUTTI_ERR_REGISTRY_INVALID_GENERATION: {
    message:
      'Connector "{key}" generation {generation} is not valid: use a whole number from 0 up.',
    status: 400,
  },
  TUTTI_ERR_ROUTES_INVALID_METADATA: {
    message:
      'Connector "{key}" discover metadata is not valid: {reason}. Fix the connector release metadata.',
    status: 422,
  },
  TUTTI_ERR_SHIM_STALE_GENERATION: {
    message:
      'The CLI shim of connector "{key}" is at generation {published}, newer than {generation}: publish the current generation.',
    status: 409,
  },
  TUTTI_ERR_SHIM_INVALID_INPUT: {
    message:
      'The CLI shim of connector "{key}" cannot be written: {reason}. Fix the connector\'s CLI entrypoint or environment.',
    status: 400,
  },
  TUTTI_ERR_AUTH_MISSING_TOKEN: {
    message:
      "The request to the connector server carries no bearer token: send the Authorization header of the agent session's connector binding.",
    status: 401,
  },
  TUTTI_ERR_AUTH_INVALID_TOKEN: {
    message:
      'The bearer token sent to the connector server is unknown or revoked: start or resume the agent session to get a new connector binding.',
    status: 401,
  },
  TUTTI_ERR_SERVER_BAD_HOST: {
    message:
      'Host "{host}" is not a loopback name with the connector server\'s port {port}: connect to 127.0.0.1, localhost or [::1] on that port.',
    status: 403,
  },
  TUTTI_ERR_SERVER_BAD_ORIGIN: {
    message:
      'Origin "{origin}" may not call the connector server: send no Origin, "null" or a loopback origin (127.0.0.1, localhost, [::1]).',
    status: 403,
  },
  TUTTI_ERR_SERVER_METHOD_NOT_ALLOWED: {
    message: 'HTTP {method} is not served on {path}: send each MCP message as its own POST.',
    status: 405,
  },
  TUTTI_ERR_SERVER_BODY_TOO_LARGE: {
    message:
      'The request body sent to the connector server is larger than {limit} bytes: send a smaller request, or start tuttid with a larger --mcp-body-limit.',
    status: 413,
  },
  TUTTI_ERR_SERVER_BAD_BODY: {
    message:
      'The request body sent to the connector server is not usable: {reason}. Send one JSON-RPC message as application/json.',
    status: 400,
  },
  TUTTI_ERR_SERVER_BAD_MEDIA_TYPE: {
    message:
      'The request body sent to the connector server is not application/json: send one JSON-RPC message as application/json.',
    status: 415,
  },
  TUTTI_ERR_SERVER_TOO_MANY_STREAMS: {
    message:
      'This agent session already holds {limit} open subscriptions/listen streams on the connector server: close one before opening another (one per client is enough).',
    status: 429,
  },
  TUTTI_ERR_SERVER_ARGUMENTS_TOO_DEEP: {
    message:
      'The arguments of tool "{localName}" are nested deeper than {limit} levels of objects and arrays, so the call was refused without reaching the connector: send flatter arguments.',
    status: 400,
  },
  TUTTI_ERR_SERVER_INTERNAL: {
    message:
      'The connector server failed to answer this request: see the daemon log for the cause, and send it again.',
    status: 500,
  },
  TUTTI_ERR_SERVER_SHUTTING_DOWN: {
    message:
      'The connector server is shutting down with its daemon, so the call of tool "{tool}" was stopped: call the tool again once tuttid runs again.',
    status: 503,
  },
  TUTTI_ERR_UPSTREAM_SPAWN_FAILED: {
    message:
      'Upstream MCP server command "{command}" could not be started: {reason}. Check that the connector\'s command is installed and executable.',
    status: 502,
  },
  TUTTI_ERR_UPSTREAM_WROTE_RELEASE: {
    message:
      'The MCP server of connector "{key}" stopped after it tried to write inside its release folder, which is read-only: have it write to its state folder, named by $TUTTI_CONNECTOR_STATE_DIR (docs/sandbox.md).',
    status: 502,
  },
  TUTTI_ERR_UPSTREAM_START_TIMEOUT: {
    message:
      'Upstream MCP server "{target}" did not finish initialize and tools/list within {timeoutMs} ms, so it was stopped: check that the connector starts an MCP server, or raise `mcp.startTimeoutMs` in its manifest (default 30000).',
    status: 504,
  },
  TUTTI_ERR_UPSTREAM_START_FAILED: {
    message:
      'Upstream MCP server "{target}" failed during startup: {reason}. The last lines it wrote to stderr are shown with the connector\'s state (the dashboard, tuttid status); check its command, URL and credentials.',
    status: 502,
  },
  TUTTI_ERR_UPSTREAM_START_ABANDONED: {
    message:
      'The start of upstream MCP server "{target}" was called off before it finished (a newer release or credential replaced it, or the daemon is stopping): nothing to do.',
    status: 503,
  },
  TUTTI_ERR_UPSTREAM_MESSAGE_TOO_LARGE: {
    message:
      'Upstream MCP server "{target}" wrote a line of more than {limit} bytes ({mib} MiB) to its stdout, the most one message may take, so it was stopped: make the server send smaller messages (a tools/list in pages, smaller tool results). The bound is fixed: no setting or manifest field raises it.',
    status: 502,
  },
  TUTTI_ERR_UPSTREAM_UNAUTHORIZED: {
    message:
      'Remote MCP server "{target}" refused the connector\'s credential (HTTP {status}): authorization is lost until a new credential is set for the connector.',
    status: 502,
  },
  TUTTI_ERR_UPSTREAM_TOO_MANY_PAGES: {
    message:
      'Upstream MCP server "{target}" returned more than {maxPages} tools/list pages: fix its pagination or raise the page cap.',
    status: 502,
  },
  TUTTI_ERR_UPSTREAM_TOO_MANY_TOOLS: {
    message:
      'Upstream MCP server "{target}" listed more than {maxTools} tools: reduce its tools or raise the tool cap.',
    status: 502,
  },
  TUTTI_ERR_UPSTREAM_REPEATED_CURSOR: {
    message:
      'Upstream MCP server "{target}" repeated a tools/list cursor on page {page}, so its pagination never ends: fix the server.',
    status: 502,
  },
  TUTTI_ERR_UPSTREAM_EXITED: {
    message:
      'Upstream MCP server "{target}" ended ({reason}) before it answered: call the tool again once its connector is ready again (tutti connector available shows its state).',
    status: 502,
  },
  TUTTI_ERR_UPSTREAM_CLOSED: {
    message:
      'The connection to upstream MCP server "{target}" is closed (its connector was replaced, removed or stopped): list tools again, then call the tool again if it is still listed.',
    status: 503,
  },
  TUTTI_ERR_UPSTREAM_CANCELLED: {
    message:
      'The call of tool "{tool}" on upstream MCP server "{target}" was cancelled by its caller: call the tool again if its result is still wanted.',
    status: 499,
  },
  TUTTI_ERR_UPSTREAM_CALL_TIMEOUT: {
    message:
      'The call of tool "{tool}" on upstream MCP server "{target}" timed out after {timeoutMs} ms and was cancelled upstream: call the tool again, with a smaller request if it times out again.',
    status: 504,
  },
  TUTTI_ERR_UPSTREAM_CALL_REJECTED: {
    message:
      'Upstream MCP server "{target}" refused the call of tool "{tool}" with JSON-RPC error {rpcCode} ({reason}): check the arguments against the tool\'s inputSchema (tools/list), then call the tool again.',
    status: 502,
  },
  TUTTI_ERR_UPSTREAM_INVALID_RESULT: {
    message:
      'Upstream MCP server "{target}" answered the call of tool "{tool}" with something that is not an MCP tool result ({reason}): install a release of the connector whose server answers this tool correctly (POST /v1/connectors/install), then call the tool again.',
    status: 502,
  },
  TUTTI_ERR_UPSTREAM_CALL_FAILED: {
    message:
      'The call of tool "{tool}" on upstream MCP server "{target}" failed ({reason}): call the tool again, and if it fails the same way, check the connector\'s state (tutti connector available); its server\'s stderr is shown by tuttid status and the dashboard.',
    status: 502,
  },
} as const satisfies Record<string, ErrorSpec>);
