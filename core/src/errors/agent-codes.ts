/**
 * The rows of the error table (`codes.ts`) for installed agents: registry entries, signed
 * extensions and their packages. Kept in their own file; `ERROR_CODES` holds them too and
 * `docs/errors.md` lists them with the rest.
 */
import type { ErrorSpec } from './error-spec.js';

export const AGENT_ERROR_CODES = Object.freeze({
  TUTTI_ERR_AGENT_BAD_REQUEST: {
    message:
      'The agent install request was refused: {field}: {problem}. Send {"entry": <agent.json>}, {"id": "<registry id>"} or {"extension": <source>} (docs/installing-agents.md).',
    status: 400,
  },
  TUTTI_ERR_AGENT_BAD_ENTRY: {
    message:
      'The registry entry of agent "{id}" was refused: {field}: {problem}. Fix the entry (docs/installing-agents.md lists its fields); nothing was installed.',
    status: 422,
  },
  TUTTI_ERR_AGENT_UNPINNED: {
    message:
      'Agent "{id}" names the package "{package}" without an exact version: pin one ("{example}"); nothing was installed.',
    status: 422,
  },
  TUTTI_ERR_AGENT_NO_PLATFORM: {
    message:
      'Agent "{id}" has no binary for this platform ({platform}) and no npx or uvx package: use another agent or ask its authors for a {platform} build; nothing was installed.',
    status: 422,
  },
  TUTTI_ERR_AGENT_CHECKSUM_MISSING: {
    message:
      'Agent "{id}" binary "{url}" has no sha256 in its entry: tutti runs a downloaded binary only when its SHA-256 is pinned: add "sha256" to the {platform} target; nothing was installed.',
    status: 422,
  },
  TUTTI_ERR_AGENT_CHECKSUM_MISMATCH: {
    message:
      'The download "{url}" does not match its pinned SHA-256 (expected {expected}, got {actual}): it was changed or damaged; nothing was installed.',
    status: 422,
  },
  TUTTI_ERR_AGENT_ARCHIVE_UNSAFE: {
    message: 'The archive "{url}" was refused: entry "{entry}" {reason}; nothing was extracted.',
    status: 422,
  },
  TUTTI_ERR_AGENT_DOWNLOAD_FAILED: {
    message:
      'The download "{url}" failed: {reason}. Check the address and that it is reachable, then install again; nothing was installed.',
    status: 502,
  },
  TUTTI_ERR_AGENT_INSTALL_FAILED: {
    message:
      'Installing agent "{id}" failed: {reason}. Nothing was installed; fix what the reason names and install again.',
    status: 502,
  },
  TUTTI_ERR_AGENT_UV_MISSING: {
    message:
      'Agent "{id}" is a Python package installed with uv, and uv is not on PATH: install uv (https://docs.astral.sh/uv/), then install the agent again.',
    status: 422,
  },
  TUTTI_ERR_AGENT_NOT_IN_INDEX: {
    message:
      'Agent "{id}" is not in the agent registry index {index}: check the id, or send its entry as {"entry": <agent.json>}.',
    status: 404,
  },
  TUTTI_ERR_AGENT_NO_INDEX: {
    message:
      'No agent registry index is configured, so agent "{id}" cannot be looked up: start tuttid with --agent-registry <file or URL of registry.json>, or send the entry itself as {"entry": <agent.json>}.',
    status: 422,
  },
  TUTTI_ERR_AGENT_NOT_INSTALLED: {
    message:
      'Agent "{id}" is not installed in this tutti home: GET /v1/agents lists the installed ones.',
    status: 404,
  },
  TUTTI_ERR_AGENT_IN_USE: {
    message:
      'Agent "{id}" has {count} running session(s): close them (DELETE /v1/sessions/{session}), then remove or replace the agent.',
    status: 409,
  },
  TUTTI_ERR_AGENT_BUSY: {
    message:
      'Agent "{id}" is being installed or removed by another request: wait for it to finish, then try again.',
    status: 409,
  },
  TUTTI_ERR_EXTENSION_BAD_KEY: {
    message:
      'The public key of the extension source of "{agent}" cannot be read ({reason}): give an Ed25519 key as PEM (SPKI) or its raw 32 bytes in base64; nothing was installed.',
    status: 422,
  },
  TUTTI_ERR_EXTENSION_BAD_SIGNATURE: {
    message:
      'The signature of "{url}" does not verify with the pinned public key of "{agent}": the file was changed or signed with another key; nothing was installed.',
    status: 422,
  },
  TUTTI_ERR_EXTENSION_VERSION_MISMATCH: {
    message:
      'The extension of "{agent}" is pinned to version {pinned}, and {where} says {found}: pin the version the publisher signed, or wait for it; nothing was installed.',
    status: 422,
  },
  TUTTI_ERR_EXTENSION_IDENTITY_MISMATCH: {
    message:
      'The extension source names agent "{agent}", and {where} names "{found}": use the source published for that agent; nothing was installed.',
    status: 422,
  },
  TUTTI_ERR_EXTENSION_NOT_DATA: {
    message:
      'The extension package of "{agent}" holds "{file}", which {reason}: an extension holds data only (no code, no executables); nothing was installed.',
    status: 422,
  },
  TUTTI_ERR_EXTENSION_BAD_PACKAGE: {
    message:
      'The extension package of "{agent}" was refused: {problem}. Fix the package (docs/agent-extensions.md says what it holds); nothing was installed.',
    status: 422,
  },
} as const satisfies Record<string, ErrorSpec>);
