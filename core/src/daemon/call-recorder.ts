/**
 * The daemon's observer of `tools/call` (server/call-observer.ts): for each call a SERVER
 * span named after the local tool, under the agent's `_meta.traceparent` (else, for a
 * daemon-driven session, under its turn's tool-call span) and linked to an HTTP
 * `traceparent` header; a CLIENT span named after the upstream tool, whose context goes to
 * the upstream in `_meta`; and one audit record once the call was answered. The names and
 * attributes follow the OpenTelemetry conventions for MCP (docs/tracing.md).
 */
import type { AuditLog } from '../audit/index.js';
import { outcomeOf } from '../audit/outcome.js';
import type { UpstreamCallResult } from '../contracts/index.js';
import { isTuttiError } from '../errors/index.js';
import type { ObservedCall, ToolCallObserver } from '../server/call-observer.js';
import {
  checkBaggage,
  formatTraceparent,
  readTraceContext,
  type Span,
  type TraceContext,
  type Tracer,
} from '../telemetry/index.js';
import { isPlainObject } from '../util/objects.js';

/** What the recorder asks of the daemon's agent sessions. */
export interface RecordedSessions {
  /** The provider of a session the daemon holds. */
  providerOf(agentSessionId: string): string | undefined;
  /** The span a call of this session without trace context hangs under (its turn's). */
  toolCallParent(agentSessionId: string, localToolName: string): TraceContext | undefined;
}

/** Options of {@link createCallRecorder}. */
export interface CallRecorderOptions {
  readonly tracer: Tracer;
  /** Where records go; none: no audit. */
  readonly audit?: Pick<AuditLog, 'append'>;
  /** Hand the call's result to the audit too (only when values are captured). */
  readonly captureValues?: boolean;
  readonly sessions: RecordedSessions;
  /** Pass the agent's `baggage` on to the upstream (default false). */
  readonly baggage?: boolean;
}

/** The `error.type` of a failed call: the JSON-RPC code sent, else the outcome. */
function errorTypeOf(rpcCode: number | undefined, outcome: string): string {
  return rpcCode === undefined ? outcome : String(rpcCode);
}

function oneOf(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** Creates the recorder. */
export function createCallRecorder(options: CallRecorderOptions): ToolCallObserver {
  const { tracer, audit, sessions } = options;
  return {
    begin(arrival) {
      const params = isPlainObject(arrival.params) ? arrival.params : {};
      const tool = typeof params.name === 'string' ? params.name : '';
      const meta = isPlainObject(params._meta) ? params._meta : undefined;
      const agentSessionId = arrival.session.agentSessionId;
      const incoming = meta && readTraceContext(meta.traceparent, meta.tracestate);
      const headerParent =
        arrival.headers.traceparent === undefined
          ? undefined
          : readTraceContext(oneOf(arrival.headers.traceparent), oneOf(arrival.headers.tracestate));
      const parent =
        incoming ?? (tracer.recording ? sessions.toolCallParent(agentSessionId, tool) : undefined);
      const baggage = options.baggage && meta ? checkBaggage(meta.baggage) : undefined;
      const server = tracer.start({
        name: `tools/call ${tool}`,
        kind: 'server',
        ...(parent && { parent }),
        ...(headerParent && headerParent.spanId !== parent?.spanId && { links: [headerParent] }),
        attributes: {
          'mcp.method.name': 'tools/call',
          'gen_ai.operation.name': 'execute_tool',
          'gen_ai.tool.name': tool,
          'mcp.protocol.version': arrival.protocol,
          'jsonrpc.request.id': String(arrival.requestId),
          'network.transport': 'tcp',
          'network.protocol.name': 'http',
          'tutti.agent_session.id': agentSessionId,
        },
      });
      let client: Span | undefined;
      let binding: { connector: string; upstreamTool: string; generation: number } | undefined;
      let result: UpstreamCallResult | undefined;
      const call: ObservedCall = {
        upstream(bound) {
          binding = {
            connector: bound.connectorKey,
            upstreamTool: bound.upstreamName,
            generation: bound.generation,
          };
          server.set({ 'tutti.connector.key': bound.connectorKey });
          client = tracer.start({
            name: `tools/call ${bound.upstreamName}`,
            kind: 'client',
            ...(server.context && { parent: server.context }),
            attributes: {
              'mcp.method.name': 'tools/call',
              'gen_ai.operation.name': 'execute_tool',
              'gen_ai.tool.name': bound.upstreamName,
              'mcp.protocol.version': bound.client.protocolVersion,
              'network.transport': bound.client.transport,
              'tutti.connector.key': bound.connectorKey,
              'tutti.connector.generation': bound.generation,
            },
          });
          const context = client.context;
          if (!context) return baggage === undefined ? undefined : { baggage };
          return {
            traceparent: formatTraceparent(context),
            ...(context.state !== undefined && { tracestate: context.state }),
            ...(baggage !== undefined && { baggage }),
          };
        },
        upstreamEnded(ended, error) {
          result = ended;
          if (!client) return;
          if (error !== undefined) {
            client.fail(isTuttiError(error) ? error.code : 'error');
          } else if (ended?.isError === true) client.fail('tool_error');
          client.end();
        },
        answered(answer) {
          const outcome = outcomeOf(result, answer.error, answer.aborted);
          if (outcome !== 'ok') {
            server.fail(errorTypeOf(answer.rpcCode, outcome));
          }
          server.end();
          if (!audit) return;
          const durationMs = performance.now() - arrival.startedAt;
          const code = isTuttiError(answer.error) ? answer.error.code : undefined;
          const provider = sessions.providerOf(agentSessionId);
          const traceId = server.context?.traceId;
          audit.append({
            time: new Date(Date.now() - durationMs).toISOString(),
            workspace: arrival.session.workspaceId,
            session: agentSessionId,
            ...(provider !== undefined && { provider }),
            tool,
            ...binding,
            protocol: arrival.protocol,
            durationMs: Math.round(durationMs * 1000) / 1000,
            outcome,
            ...(code !== undefined && { code }),
            ...(answer.rpcCode !== undefined && { rpcCode: answer.rpcCode }),
            resultBytes: answer.resultBytes,
            ...(traceId !== undefined && { traceId }),
            args: params.arguments,
            ...(options.captureValues && result && { callResult: result }),
          });
        },
      };
      return call;
    },
  };
}
