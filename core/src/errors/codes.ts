/**
 * The one table of tutti error codes. Each message says what happened, to what, and what
 * to do; `{name}` placeholders are filled from the error's details. `docs/errors.md` lists
 * exactly these codes with these messages (a test keeps them in step).
 */

import { AGENT_ERROR_CODES } from './agent-codes.js';

import type { ErrorSpec } from './error-spec.js';

export type { ErrorSpec } from './error-spec.js';

export const ERROR_CODES = Object.freeze({
  ...AGENT_ERROR_CODES,
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
  TUTTI_ERR_CLI_DAEMON_NOT_RUNNING: {
    message:
      'No tutti daemon is running for this tutti home: start one with `npm start` or `tuttid`, then run the command again.',
    status: 503,
  },
  TUTTI_ERR_CLI_DAEMON_STARTING: {
    message:
      'The tutti daemon of this tutti home (pid {pid}) is starting and does not answer yet: run the command again in a moment.',
    status: 503,
  },
  TUTTI_ERR_CLI_DAEMON_REJECTED: {
    message:
      'The tutti daemon refused the request ({reason}): restart the daemon with `tuttid`, then run the command again.',
    status: 502,
  },
  TUTTI_ERR_CLI_DAEMON_BAD_RESPONSE: {
    message:
      'The tutti daemon answered with data this CLI does not understand: update tutti so that the CLI and the daemon match.',
    status: 502,
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
  TUTTI_ERR_MANIFEST_UNREADABLE: {
    message:
      'Cannot read the connector manifest "{source}" ({reason}): a connector release is a folder with tutti-connector.json at its root.',
    status: 400,
  },
  TUTTI_ERR_MANIFEST_INVALID_JSON: {
    message: 'Connector manifest "{source}" is not valid JSON ({reason}): fix its syntax.',
    status: 400,
  },
  TUTTI_ERR_MANIFEST_INVALID: {
    message: 'Connector manifest "{source}" is not valid: {problems}.',
    status: 422,
  },
  TUTTI_ERR_STORE_RELEASE_NOT_FOUND: {
    message:
      'Connector release folder "{source}" does not exist ({reason}): give the absolute path of a release folder, the one with tutti-connector.json at its root.',
    status: 400,
  },
  TUTTI_ERR_STORE_RELEASE_NOT_A_FOLDER: {
    message:
      'Connector release "{source}" is {what}, not a folder: give the absolute path of the release folder, the one with tutti-connector.json at its root.',
    status: 400,
  },
  TUTTI_ERR_STORE_RELEASE_NO_ACCESS: {
    message:
      'The daemon may not read "{path}" (permission denied), so connector release "{source}" cannot be installed: let the user tuttid runs as read it and enter every folder above it, or copy the release to a folder that user can read, then install it again.',
    status: 422,
  },
  TUTTI_ERR_STORE_UNSAFE_RELEASE: {
    message:
      'Connector release "{source}" cannot be installed: "{entry}" {reason}. Replace it with a regular file inside the release.',
    status: 422,
  },
  TUTTI_ERR_STORE_RELEASE_TOO_LARGE: {
    message:
      'Connector release "{source}" cannot be installed: it holds more than {limit} (reached at "{at}"). Remove what the connector does not need, or raise the cap with tuttid --max-release-mb.',
    status: 413,
  },
  TUTTI_ERR_STORE_TIMEOUT: {
    message:
      'The connector store gave up on {operation} after {seconds} s, and made no change for it: check that {what} is not on a hung or very slow disk or mount, then retry.',
    status: 503,
  },
  TUTTI_ERR_STORE_STATE_CORRUPT: {
    message:
      'State file "{file}" is corrupt ({reason}) and no good copy exists: move it and its .last-good copy aside to start with an empty state, or restore it from a backup.',
    status: 500,
  },
  TUTTI_ERR_STORE_STATE_RESTORED: {
    message:
      'State file "{file}" was corrupt ({reason}): tutti restored the last good copy and kept the corrupt file as "{kept}". Check the disk, then reinstall any connector changed since.',
    status: 500,
  },
  TUTTI_ERR_STORE_RELEASE_MISSING: {
    message:
      'Connector "{key}" is installed but its release {digest} cannot be read ({reason}): install the connector again.',
    status: 500,
  },
  TUTTI_ERR_STORE_NO_ROLLBACK: {
    message:
      'Connector "{key}" has no earlier release that ran to go back to: install the release you want (POST /v1/connectors/install).',
    status: 409,
  },
  TUTTI_ERR_STORE_NOT_INSTALLED: {
    message: 'Connector "{key}" is not installed: install it from its release folder first.',
    status: 404,
  },
  TUTTI_ERR_STORE_NO_CREDENTIAL: {
    message:
      'Connector "{key}" declares auth "none" and takes no credential: declare api_key or oauth2 in its manifest to give it one.',
    status: 400,
  },
  TUTTI_ERR_STORE_INVALID_CREDENTIAL: {
    message:
      'The credential given for connector "{key}" is not valid ({reason}): give a non-empty value without line breaks or NUL characters.',
    status: 400,
  },
  TUTTI_ERR_STORE_CREDENTIAL_CORRUPT: {
    message:
      'The credential file of connector "{key}" cannot be read ({reason}): set the credential again.',
    status: 500,
  },
  TUTTI_ERR_CREDENTIAL_STORE_UNAVAILABLE: {
    message:
      'No OS keychain answers ({reason}) and the daemon was started with --credential-store keychain, so the credential of connector "{key}" was not stored: start a Secret Service (e.g. gnome-keyring) or Keychain, or start tuttid with --credential-store auto or file.',
    status: 503,
  },
  TUTTI_ERR_CREDENTIAL_KEYCHAIN_FAILED: {
    message:
      'The OS keychain failed to {action} the {slot} of connector "{key}" ({reason}): check that the keychain is unlocked, then try again.',
    status: 503,
  },
  TUTTI_ERR_CREDENTIAL_TOO_LARGE: {
    message:
      'The {slot} of connector "{key}" is {length} characters, more than the {limit} this OS keychain holds in one item: start tuttid with --credential-store file to keep it in a 0600 file instead.',
    status: 413,
  },
  TUTTI_ERR_OAUTH_SIGN_IN_REQUIRED: {
    message:
      'Connector "{key}" needs you to sign in to its server ({reason}): use the dashboard\'s Sign in button, or POST /v1/connectors/{key}/authorize on the tutti daemon control API and open the URL it answers.',
    status: 401,
  },
  TUTTI_ERR_OAUTH_NOT_REMOTE: {
    message:
      'Connector "{key}" does not sign in to its server (it has no remote MCP server, or it takes an API key or a token set as its credential): set its credential with PUT /v1/connectors/{key}/credentials instead.',
    status: 400,
  },
  TUTTI_ERR_OAUTH_DISCOVERY_FAILED: {
    message:
      'The authorization server of connector "{key}" could not be found ({reason}): check the connector\'s URL, or ask its publisher whether the server supports MCP authorization.',
    status: 502,
  },
  TUTTI_ERR_OAUTH_PKCE_UNSUPPORTED: {
    message:
      'The authorization server {issuer} of connector "{key}" does not advertise PKCE with S256, which MCP authorization requires, so tutti will not sign in there: ask the server\'s operator to enable it.',
    status: 502,
  },
  TUTTI_ERR_OAUTH_REGISTRATION_UNSUPPORTED: {
    message:
      'The authorization server {issuer} of connector "{key}" offers no way for tutti to register (no dynamic client registration, and no client ID metadata document configured): register a client there, put its id in the manifest\'s auth.clientId (and its secret with PUT /v1/connectors/{key}/credentials with a clientSecret field), or start tuttid with --oauth-client-metadata-url.',
    status: 502,
  },
  TUTTI_ERR_OAUTH_REGISTRATION_FAILED: {
    message:
      'The authorization server {issuer} of connector "{key}" refused to register tutti as a client ({reason}): check the manifest\'s auth.scopes, or register a client there and set auth.clientId.',
    status: 502,
  },
  TUTTI_ERR_OAUTH_STATE_INVALID: {
    message:
      "This sign-in answer does not belong to a sign-in in progress (its state is unknown, used or more than 10 minutes old): start the sign-in again with the dashboard's Sign in button or the control API's authorize endpoint.",
    status: 400,
  },
  TUTTI_ERR_OAUTH_ISSUER_MISMATCH: {
    message:
      'The sign-in answer for connector "{key}" names a different authorization server than the one tutti asked (RFC 9207), so it was refused: start the sign-in again; if it repeats, another program may be answering in the server\'s place.',
    status: 400,
  },
  TUTTI_ERR_OAUTH_AUTHORIZATION_DENIED: {
    message:
      'The authorization server of connector "{key}" did not grant access ({reason}): start the sign-in again and allow access.',
    status: 403,
  },
  TUTTI_ERR_OAUTH_TOKEN_REQUEST_FAILED: {
    message:
      'The authorization server of connector "{key}" refused the token request ({reason}): start the sign-in again.',
    status: 502,
  },
  TUTTI_ERR_OAUTH_SERVER_UNREACHABLE: {
    message:
      'The authorization server of connector "{key}" did not answer a token refresh ({reason}): tutti keeps the sign-in and tries again; calls work again once it answers.',
    status: 503,
  },
  TUTTI_ERR_UPSTREAM_SPAWN_FAILED: {
    message:
      'Upstream MCP server command "{command}" could not be started: {reason}. Check that the connector\'s command is installed and executable.',
    status: 502,
  },
  TUTTI_ERR_SANDBOX_UNAVAILABLE: {
    message:
      'The MCP server of connector "{key}" was not started: tuttid runs with --sandbox required and cannot isolate it here ({reason}). Install bubblewrap (Debian and Ubuntu: apt install bubblewrap), or start tuttid with --sandbox auto to run servers without isolation where it does not work.',
    status: 503,
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
  TUTTI_ERR_PLUGIN_LOAD_FAILED: {
    message:
      'Plugin at "{origin}" could not be loaded: {reason}. Fix or remove it; it was skipped.',
    status: 500,
  },
  TUTTI_ERR_PLUGIN_INVALID: {
    message:
      'Plugin at "{origin}" is not valid: {reason}. Export default { name, version, capabilities?, apply(host) }; it was skipped.',
    status: 422,
  },
  TUTTI_ERR_PLUGIN_DUPLICATE: {
    message:
      'Plugin "{plugin}" at "{origin}" is already loaded from "{first}": remove one of them; the second was skipped.',
    status: 409,
  },
  TUTTI_ERR_PLUGIN_APPLY_FAILED: {
    message: 'Plugin "{plugin}" failed in apply: {reason}. Fix or remove it; it was skipped.',
    status: 500,
  },
  TUTTI_ERR_PLUGIN_HOOK_FAILED: {
    message: 'Plugin "{plugin}" failed in hook "{hook}": {reason}. Fix or remove the plugin.',
    status: 500,
  },
  TUTTI_ERR_PLUGIN_INVALID_PROVIDER: {
    message: 'Provider "{provider}" is not valid: {reason}. Fix its plugin; it was not registered.',
    status: 500,
  },
  TUTTI_ERR_PLUGIN_BAD_DESCRIPTOR: {
    message:
      'Agent descriptor "{file}" was refused: {field}: {problem}. The other descriptors loaded.',
    status: 422,
  },
  TUTTI_ERR_PLUGIN_DUPLICATE_PROVIDER: {
    message:
      'Provider "{provider}" is already registered: rename one of the providers; the second registration was refused.',
    status: 409,
  },
  TUTTI_ERR_SESSION_BINDING_DROPPED: {
    message:
      'Tap "{plugin}" of hook "prepare" changed or dropped the connector binding of agent session "{session}": return mcpServers unchanged. Fix or remove that plugin.',
    status: 500,
  },
  TUTTI_ERR_SESSION_INVALID_RUNTIME: {
    message:
      'The prepared runtime of agent session "{session}" is not valid after the prepare hook: {reason}. Fix the plugin that changed it.',
    status: 500,
  },
  TUTTI_ERR_SESSION_UNKNOWN_PROVIDER: {
    message:
      'No provider named "{provider}" is registered (known: {known}): pick one of those or install its plugin.',
    status: 404,
  },
  TUTTI_ERR_SESSION_UNSUPPORTED: {
    message: 'Provider "{provider}" cannot {operation} sessions: start a new session instead.',
    status: 409,
  },
  TUTTI_ERR_SESSION_PERMISSIONS_UNSUPPORTED: {
    message:
      'Provider "{provider}" cannot keep the permissions mode "{mode}": the daemon cannot make its agent ask before each tool call. Start the session with "permissions": "agent" to run it under its own approval rules, or use a provider that supports "{mode}" (GET /v1/providers lists each one\'s modes).',
    status: 422,
  },
  TUTTI_ERR_SESSION_NOT_RESTARTABLE: {
    message:
      'Agent session "{session}" is {status}, not needs-restart: only a session that could not come back can be restarted. Start a new session instead (POST /v1/sessions).',
    status: 409,
  },
  TUTTI_ERR_SESSION_RESTART_FAILED: {
    message:
      'Agent session "{session}" could not be restarted: {reason}. It is still listed needs-restart: fix what the reason names, then restart it again.',
    status: 502,
  },
  TUTTI_ERR_SESSION_UNKNOWN: {
    message: 'Agent session "{session}" is not known to this host: list sessions again.',
    status: 404,
  },
  TUTTI_ERR_SESSION_EXISTS: {
    message:
      'Agent session "{session}" is already live on this host: close it first or use another id (a daemon-driven session is rebound only through its own resume).',
    status: 409,
  },
  TUTTI_ERR_SESSION_LIMIT: {
    message:
      'The daemon already holds {max} live agent sessions: close one (DELETE /v1/sessions/<id>), or start tuttid with a larger --max-sessions.',
    status: 429,
  },
  TUTTI_ERR_SESSION_DECLARATION_NEEDED: {
    message:
      'Provider "{provider}" learns what the agent supports from its handshake: pass the agent\'s answer as agentCapabilities (ACP initialize: agentCapabilities).',
    status: 400,
  },
  TUTTI_ERR_SESSION_NOT_HOST_DRIVEN: {
    message:
      'Agent session "{session}" is not driven by its host, so it has no projection to fetch: the daemon drives it.',
    status: 409,
  },
  TUTTI_ERR_SESSION_NOT_LIVE: {
    message: 'Agent session "{session}" is {status}, not live: start, load or resume a session.',
    status: 409,
  },
  TUTTI_ERR_SESSION_UNKNOWN_SETTING: {
    message:
      'Provider "{provider}" has no setting "{setting}" (known: {known}): name one of those in "settings".',
    status: 400,
  },
  TUTTI_ERR_SESSION_START_TIMEOUT: {
    message:
      'The agent of provider "{provider}" did not finish starting agent session "{session}" within {ms} ms and was stopped.{stderr} Check the agent command and its settings, or raise the agent timeout (tuttid --agent-timeout).',
    status: 504,
  },
  TUTTI_ERR_SESSION_START_FAILED: {
    message:
      'Provider "{provider}" could not start agent session "{session}": {reason}.{stderr} Check the agent command, its settings and its credentials (an agent\'s own settings and logs are in its user folder).',
    status: 502,
  },
  TUTTI_ERR_TURN_BUSY: {
    message:
      'Agent session "{session}" is already running a turn: wait for its end event, or cancel it (POST /v1/sessions/{session}/turns/cancel).',
    status: 409,
  },
  TUTTI_ERR_TURN_MODEL_FAILED: {
    message:
      'The model API of provider "{provider}" answered the agent with an error{status}: {reason}. Check the agent\'s model credentials and provider settings, then start another turn.',
    status: 502,
  },
  TUTTI_ERR_TURN_UNSUPPORTED: {
    message: 'Provider "{provider}" takes no turns through the daemon: drive the agent yourself.',
    status: 409,
  },
  TUTTI_ERR_TURN_FAILED: {
    message:
      'The turn of provider "{provider}" failed: {reason}. Start another turn; if it fails the same way, check the agent\'s model settings and credentials.',
    status: 502,
  },
  TUTTI_ERR_TURN_PERMISSION_TIMEOUT: {
    message:
      'Nobody answered whether the agent of provider "{provider}" may run "{tool}" within {ms} ms: it was denied and the turn cancelled. Answer permission events with POST /v1/sessions/<id>/permissions/<requestId>, or start the session with "permissions": "allow-connector".',
    status: 408,
  },
  TUTTI_ERR_TURN_UNKNOWN_PERMISSION: {
    message:
      'Agent session "{session}" has no pending permission request "{request}": it was answered, timed out, or its turn ended.',
    status: 404,
  },
  TUTTI_ERR_TURN_BAD_PROMPT: {
    message:
      'The prompt is not valid ({problem}): give "prompt" as a non-empty text or an array of text and image content blocks.',
    status: 400,
  },
  TUTTI_ERR_TURN_ELICITATION_TIMEOUT: {
    message:
      'Nobody answered the question MCP server "{server}" asked through the agent of provider "{provider}" within {ms} ms: it was cancelled. Answer elicitation events with POST /v1/sessions/<id>/elicitations/<requestId>, or give the person longer with tuttid --permission-timeout MS.',
    status: 408,
  },
  TUTTI_ERR_TURN_UNKNOWN_ELICITATION: {
    message:
      'Agent session "{session}" has no pending elicitation "{request}": it was answered, timed out, withdrawn, or its turn ended.',
    status: 404,
  },
  TUTTI_ERR_PROVIDER_NO_COMMAND: {
    message: 'Provider "{provider}" has no agent command: pass launch.command.',
    status: 400,
  },
  TUTTI_ERR_PROVIDER_SPAWN_FAILED: {
    message:
      'Agent command "{command}" of provider "{provider}" could not be started: {reason}. Check that it is installed and on PATH.',
    status: 502,
  },
  TUTTI_ERR_PROVIDER_AGENT_EXITED: {
    message:
      'The agent of provider "{provider}" {what} during "{method}".{stderr} Check the agent command, its environment and its settings.',
    status: 502,
  },
  TUTTI_ERR_PROVIDER_AGENT_MISBEHAVED: {
    message:
      'The agent of provider "{provider}" {what} during "{method}" and was stopped.{stderr} Check that the command is the agent speaking this protocol.',
    status: 502,
  },
  TUTTI_ERR_PROVIDER_REQUEST_FAILED: {
    message: 'The agent of provider "{provider}" failed "{method}": {reason}.',
    status: 502,
  },
  TUTTI_ERR_PROVIDER_AGENT_AUTH: {
    message:
      'The agent of provider "{provider}" needs a login or an API key ("{reason}"): {how}, then start the session again.',
    status: 502,
  },
  TUTTI_ERR_PROVIDER_BINDING_DROPPED: {
    message:
      'Tap "{plugin}" of hook "{hook}" removed or changed the connector binding in the params of provider "{provider}" for agent session "{session}": keep the binding as projected. Fix or remove that plugin.',
    status: 500,
  },
  TUTTI_ERR_PROVIDER_USER_CONFIG_INVALID: {
    message:
      'The user config "{path}" of provider "{provider}" is not valid TOML ({reason}): fix that file; the session was not started.',
    status: 422,
  },
  TUTTI_ERR_PROVIDER_SESSION_CLOSED: {
    message:
      'Agent session "{session}" of provider "{provider}" is closed and cannot "{method}": start or resume a session.',
    status: 409,
  },
  TUTTI_ERR_CONTROL_UNAUTHORIZED: {
    message:
      'The control API needs "Authorization: Bearer <control token>": read the token from <home>/run/daemon.json.',
    status: 401,
  },
  TUTTI_ERR_CONTROL_BAD_REQUEST: {
    message:
      'The request field "{field}" is not valid ({problem}): fix the request and send it again.',
    status: 400,
  },
  TUTTI_ERR_CONTROL_AUDIT_OFF: {
    message:
      'This daemon keeps no audit trail of tool calls: it was started with --no-audit. Restart it without that flag to record them.',
    status: 409,
  },
  TUTTI_ERR_CONTROL_BODY_TOO_LARGE: {
    message:
      'The control API request body is larger than {limit} bytes: send a smaller request, or start tuttid with a larger --control-body-limit.',
    status: 413,
  },
  TUTTI_ERR_CONTROL_NOT_FOUND: {
    message: 'Nothing answers "{what}": see docs/control-api.md for the endpoints.',
    status: 404,
  },
  TUTTI_ERR_CONTROL_UNKNOWN_CONNECTOR: {
    message: 'Connector "{key}" is not installed: install it first (POST /v1/connectors/install).',
    status: 404,
  },
  TUTTI_ERR_CONTROL_NO_CREDENTIAL_NEEDED: {
    message: 'Connector "{key}" needs no credential (its auth kind is "none"): nothing to set.',
    status: 409,
  },
  TUTTI_ERR_CONTROL_INTERNAL: {
    message: 'The daemon failed to answer: see its log for the cause and try again.',
    status: 500,
  },
  TUTTI_ERR_DASHBOARD_SIGNED_OUT: {
    message:
      'The dashboard session is missing, ended or expired: open a new login link (tuttid prints one at start; POST /v1/dashboard/login gives another, see docs/dashboard.md).',
    status: 401,
  },
  TUTTI_ERR_DASHBOARD_BAD_LOGIN_CODE: {
    message:
      'This dashboard login link was already used, has expired or was never issued (a link works once, for {minutes} minutes): get a new one with POST /v1/dashboard/login (docs/dashboard.md).',
    status: 401,
  },
  TUTTI_ERR_DASHBOARD_CROSS_ORIGIN: {
    message:
      'The dashboard answers only its own page at {expected}; this request came from "{origin}": open the dashboard at its own address.',
    status: 403,
  },
  TUTTI_ERR_DASHBOARD_NOT_BUILT: {
    message:
      'The dashboard page is not built ({dir} has no index.html): run "npm run build" in the repository, then reload.',
    status: 503,
  },
  TUTTI_ERR_DAEMON_ALREADY_RUNNING: {
    message:
      'A daemon (pid {pid}) already runs for the home "{home}": stop it first, or start this one with another --home.',
    status: 409,
  },
  TUTTI_ERR_DAEMON_LOCK_FAILED: {
    message:
      'The lock file "{path}" of the tutti home cannot be locked (errno {errno}): check that the home is on a local file system this user may write to.',
    status: 500,
  },
  TUTTI_ERR_DAEMON_BAD_ARGUMENT: {
    message:
      'tuttid: {problem}. Usage: tuttid [--home DIR] [--no-demo] [--json] [--log-level L] [--log-file-size BYTES] [--log-file-count N] [--port N] [--control-port N] [--mcp-body-limit BYTES] [--control-body-limit BYTES] [--max-listen-streams N] [--max-argument-depth N] [--agent-timeout MS] [--permission-timeout MS] [--max-sessions N] [--max-release-mb N] [--agent-registry INDEX], or tuttid status (or dashboard) [--home DIR] [--json]; `tuttid --help` says what each does.',
    status: 400,
  },
  TUTTI_ERR_HOME_TOO_NEW: {
    message:
      'The tutti home "{home}" has layout version {version}, written by a newer tuttid; this tuttid knows versions up to {supported} and changed nothing in it: start the newer tuttid on this home, or start this one with another --home.',
    status: 409,
  },
  TUTTI_ERR_HOME_FORMAT_UNREADABLE: {
    message:
      'The format file "{file}" of the tutti home cannot be read ({reason}), so the layout version of the home is unknown and tuttid changed nothing: restore the file from a backup (tuttid writes it as {"version": <n>}, see docs/home-format.md), or start tuttid with another --home.',
    status: 500,
  },
  TUTTI_ERR_HOME_MIGRATION_FAILED: {
    message:
      'The tutti home "{home}" could not be migrated from layout version {from} to {to}: {reason}. Its format file still says {from}, and the next start of tuttid takes this step up again where it stopped: fix what the reason names, then start tuttid again.',
    status: 500,
  },
} as const satisfies Record<string, ErrorSpec>);

/** Every tutti error code. */
export type ErrorCode = keyof typeof ERROR_CODES;
