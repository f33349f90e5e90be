/**
 * The rows of the error table (`codes.ts`) for agent sessions: the session host, its turns,
 * the providers that drive the agents and the plugins that bring them. Kept in their own
 * file; `ERROR_CODES` holds them too and `docs/errors.md` lists them with the rest.
 */
import type { ErrorSpec } from './error-spec.js';

export const SESSION_ERROR_CODES = Object.freeze({
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
} as const satisfies Record<string, ErrorSpec>);
