/** The error class every tutti module throws; its code is a row of {@link ERROR_CODES}. */
import { ERROR_CODES, type ErrorCode } from './codes.js';

/** Values that fill an error message's `{name}` placeholders. Never put secrets here. */
export type ErrorDetails = Readonly<Record<string, string | number | boolean>>;

/**
 * Fills `{name}` placeholders of a template from details; unknown names stay as written. A
 * value that ends a sentence itself ("...refused."), where the template ends one too, keeps
 * one period, so no message reads "..".
 */
export function formatMessage(template: string, details: ErrorDetails): string {
  return template.replace(/\{(\w+)\}(\.?)/g, (whole, name: string, period: string) => {
    if (!(name in details)) return whole;
    const value = String(details[name]);
    return period !== '' && /[.…]$/.test(value) ? value : `${value}${period}`;
  });
}

/**
 * An error with a stable code, an HTTP status and structured details.
 * @example throw new TuttiError('TUTTI_ERR_REGISTRY_UNKNOWN_TOOL', { localName: 'gh_x' });
 */
export class TuttiError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly details: ErrorDetails;

  constructor(code: ErrorCode, details: ErrorDetails = {}, options?: { cause?: unknown }) {
    const spec = ERROR_CODES[code];
    super(formatMessage(spec.message, details), options);
    this.name = 'TuttiError';
    this.code = code;
    this.status = spec.status;
    this.details = details;
  }
}

/** True when `error` is a {@link TuttiError} with the given code (or any code). */
export function isTuttiError(error: unknown, code?: ErrorCode): error is TuttiError {
  return error instanceof TuttiError && (code === undefined || error.code === code);
}
