/** The shapes both surfaces share: what they get of a request and what they answer. */
import type { IncomingHttpHeaders } from 'node:http';
import type { CallSignal } from '../contracts/index.js';

/** What a surface gets of the HTTP request: its cancellation and its headers. */
export interface RequestScope {
  readonly signal: CallSignal;
  readonly headers: IncomingHttpHeaders;
}

/** A result as serialized JSON: text, or UTF-8 chunks spliced in as they are. */
export type SurfaceResult = string | readonly Buffer[];
