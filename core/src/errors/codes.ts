/**
 * The one table of tutti error codes. Each message says what happened, to what, and what
 * to do; `{name}` placeholders are filled from the error's details. `docs/errors.md` lists
 * exactly these codes with these messages (a test keeps them in step). The rows of a few
 * areas sit in files of their own (`agent-codes.ts`, `session-codes.ts`,
 * `connector-codes.ts`) and are spread in here: still one table.
 */
import { AGENT_ERROR_CODES } from './agent-codes.js';
import { CONNECTOR_ERROR_CODES } from './connector-codes.js';
import { SESSION_ERROR_CODES } from './session-codes.js';

import type { ErrorSpec } from './error-spec.js';

export type { ErrorSpec } from './error-spec.js';

export const ERROR_CODES = Object.freeze({
  ...AGENT_ERROR_CODES,
  ...SESSION_ERROR_CODES,
  ...CONNECTOR_ERROR_CODES,
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
  TUTTI_ERR_SANDBOX_UNAVAILABLE: {
    message:
      'The MCP server of connector "{key}" was not started: tuttid runs with --sandbox required and cannot isolate it here ({reason}). Install bubblewrap (Debian and Ubuntu: apt install bubblewrap), or start tuttid with --sandbox auto to run servers without isolation where it does not work.',
    status: 503,
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
