/**
 * How the upstream connection turns what went wrong into what is told: the error of a
 * failed start (without secrets), and the SDK's messages without an upstream's content.
 */
import { SdkError, SdkErrorCode } from '@modelcontextprotocol/client';
import { isTuttiError, TuttiError } from '../errors/index.js';
import { unauthorizedStatus } from './http-status.js';
import type { UpstreamExitInfo } from './types.js';

/**
 * An SDK error message without the upstream's message the SDK appended to it as JSON
 * ("Unknown message type: {...}", "... unknown message ID: {...}"): an upstream's output
 * may hold its credentials, and the log is no place for them.
 */
export function withoutUpstreamContent(message: string): string {
  const json = message.search(/: [[{]/);
  return json < 0 ? message : `${message.slice(0, json)} (the message is not logged)`;
}

export function isConnectionClosed(error: unknown): boolean {
  return (
    error instanceof SdkError &&
    (error.code === SdkErrorCode.ConnectionClosed || error.code === SdkErrorCode.NotConnected)
  );
}

/** The error `connectUpstream` throws for a failed start, without secrets. */
export function startError(
  error: unknown,
  target: string,
  timedOut: boolean,
  timeoutMs: number,
  exit: UpstreamExitInfo | undefined,
): TuttiError {
  // The daemon stopped the upstream for what it did: that is the cause, whatever followed.
  if (exit?.error) return exit.error;
  if (isTuttiError(error) && error.code !== 'TUTTI_ERR_UPSTREAM_START_TIMEOUT') return error;
  const refused = unauthorizedStatus(error);
  if (refused !== undefined) {
    return new TuttiError(
      'TUTTI_ERR_UPSTREAM_UNAUTHORIZED',
      { target, status: refused },
      { cause: error },
    );
  }
  if (timedOut || isTuttiError(error, 'TUTTI_ERR_UPSTREAM_START_TIMEOUT')) {
    return new TuttiError(
      'TUTTI_ERR_UPSTREAM_START_TIMEOUT',
      { target, timeoutMs },
      { cause: error },
    );
  }
  const reason = exit ? exit.reason : error instanceof Error ? error.message : String(error);
  return new TuttiError('TUTTI_ERR_UPSTREAM_START_FAILED', { target, reason }, { cause: error });
}
