/** The shapes both surfaces share: what they get of a request and what they answer. */
import type { IncomingHttpHeaders } from 'node:http';
import type { TokenSession } from '../auth/index.js';
import type { CallSignal, ToolBinding, UpstreamCallOptions } from '../contracts/index.js';
import type { ObservedCall } from './call-observer.js';

/** What a surface gets of the HTTP request: its cancellation, headers, session and relays. */
export interface RequestScope {
  readonly signal: CallSignal;
  readonly headers: IncomingHttpHeaders;
  /** The session of the token that sent it. */
  readonly session: TokenSession;
  /** The observer's handle on this request, when it is an observed `tools/call`. */
  readonly observed?: ObservedCall;
  /**
   * Of a `tools/call` whose answer may stream: who answers the upstream's elicitation (the
   * 2025 surface, when the caller declared it) and who relays its progress (a caller that
   * sent a `progressToken`). Absent: the upstream is answered `cancel` and sent no token.
   */
  readonly elicit?: UpstreamCallOptions['elicit'];
  readonly onProgress?: UpstreamCallOptions['onProgress'];
  /** Told the binding a `tools/call` resolved to, right before its upstream call. */
  readonly onBinding?: (binding: ToolBinding) => void;
}

/** A result as serialized JSON: text, or UTF-8 chunks spliced in as they are. */
export type SurfaceResult = string | readonly Buffer[];
