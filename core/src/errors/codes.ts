/**
 * The one table of tutti error codes. Each message says what happened, to what, and what
 * to do; `{name}` placeholders are filled from the error's details. `docs/errors.md` lists
 * exactly these codes with these messages (a test keeps them in step).
 */

/** One row of the table. */
export interface ErrorSpec {
  /** Message template; `{name}` is replaced by `details.name`. */
  readonly message: string;
  /** HTTP status when the error answers an HTTP request. */
  readonly status: number;
}

export const ERROR_CODES = Object.freeze({
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
} as const satisfies Record<string, ErrorSpec>);

/** Every tutti error code. */
export type ErrorCode = keyof typeof ERROR_CODES;
