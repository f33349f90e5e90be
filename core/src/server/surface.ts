/** The shapes both surfaces share: what they get of a request and what they answer. */
import type { IncomingHttpHeaders } from 'node:http';
import type { TokenSession } from '../auth/index.js';
import type { CallSignal } from '../contracts/index.js';
import type { ObservedCall } from './call-observer.js';

/** What a surface gets of the HTTP request: its cancellation, headers and session. */
export interface RequestScope {
  readonly signal: CallSignal;
  readonly headers: IncomingHttpHeaders;
  /** The session of the token that sent it. */
  readonly session: TokenSession;
  /** The observer's handle on this request, when it is an observed `tools/call`. */
  readonly observed?: ObservedCall;
}

/** A result as serialized JSON: text, or UTF-8 chunks spliced in as they are. */
export type SurfaceResult = string | readonly Buffer[];
