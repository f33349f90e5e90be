/**
 * Seeded generators of hostile requests against the loopback `connector` endpoint and the
 * control API: random methods, paths, Host/Origin/Authorization/Content-Type and MCP
 * headers, and bodies that are random JSON, JSON-RPC with wrong types, POSTed responses
 * (to elicitations never asked, with wrong shapes and huge content), batches, broken or
 * deeply nested JSON. Some requests are valid on purpose and say so (`valid`, `taken`).
 */
import fc from 'fast-check';
import type { RawRequest } from './raw-http.js';
import {
  authorizationVariants,
  brokenBody,
  contentTypeVariants,
  headerText,
  hostVariants,
  MCP_METHODS,
  originVariants,
  responseShape,
  rpcShape,
  wellFormedResponse,
} from './hostile-parts.js';

/** A generated request and whether a correct server must serve it as valid. */
export interface HostileRequest extends RawRequest {
  /** Set on requests that are well-formed, authorized and must get a JSON-RPC result. */
  readonly valid?: boolean;
  /** Set on well-formed, authorized responses: taken with 202 and no body. */
  readonly taken?: boolean;
  /** Set on well-formed requests the server must refuse with this JSON-RPC error code. */
  readonly refusedWith?: number;
  /** The request carried the right token and a loopback Host (a 2xx is allowed). */
  readonly authorized: boolean;
}

/** What the MCP generator needs to know about the running daemon. */
export interface McpTarget {
  readonly port: number;
  readonly sessionToken: string;
  /** Tokens of another kind (the control token) that must not open the MCP endpoint. */
  readonly otherTokens: readonly string[];
  /** Local tool names that answer at once (never sleep or crash). */
  readonly safeTools: readonly string[];
}

/** The headers of a well-formed, authorized POST to the endpoint, with `extra` after them. */
export function authorizedHeaders(
  target: McpTarget,
  extra: Record<string, string> = {},
): Record<string, string> {
  return {
    host: `127.0.0.1:${target.port}`,
    authorization: `Bearer ${target.sessionToken}`,
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    ...extra,
  };
}

const OTHER_METHODS = ['GET', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'PROPFIND'];

function authorizedBy(headers: Record<string, string | undefined>, token: string, port: number) {
  return (
    headers.authorization === `Bearer ${token}` &&
    (headers.host === `127.0.0.1:${port}` ||
      headers.host === `localhost:${port}` ||
      headers.host === `[::1]:${port}` ||
      headers.host === `LOCALHOST:${port}`)
  );
}

const mcpPaths = fc.oneof(
  { weight: 10, arbitrary: fc.constant('/mcp/connector') },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      '/',
      '/mcp',
      '/mcp/connector/',
      '/mcp/connector?session=1',
      '/MCP/connector',
      '/mcp/connector/..',
      '/mcp/%2e%2e/connector',
      '/.well-known/oauth-authorization-server',
      '/.well-known/oauth-protected-resource/mcp/connector',
      '/mcp/connector%00',
      '/v1/connectors',
      `/${'a'.repeat(4000)}`,
      '*',
    ),
  },
  {
    weight: 1,
    arbitrary: fc.webPath().map((path) => path || '/'),
  },
);

/** The MCP headers of a request: version, method and name, and some Mcp-Param-* lines. */
const mcpHeaders = fc.record(
  {
    'mcp-protocol-version': fc.oneof(
      fc.constantFrom('2025-06-18', '2026-07-28', '2025-03-26', '2024-11-05', '2099-01-01'),
      headerText,
    ),
    'mcp-method': fc.oneof(fc.constantFrom(...MCP_METHODS), headerText),
    'mcp-name': fc.oneof(fc.constantFrom('k_echo', '=?base64?', '=?base64?!!!?='), headerText),
    'mcp-param-region': headerText,
    'mcp-param-x': fc.constantFrom('=?base64?AAAA?=', '=?base64?%%%?=', ''),
    'mcp-session-id': headerText,
    'last-event-id': headerText,
    accept: fc.constantFrom(
      'application/json, text/event-stream',
      'text/event-stream',
      'application/json',
      '*/*',
      'text/html',
    ),
  },
  { requiredKeys: [] },
);

/** Hostile requests against the MCP endpoint (`count` of them, reproducible from `seed`). */
export function mcpRequests(target: McpTarget, seed: number, count: number): HostileRequest[] {
  const rpc = rpcShape(MCP_METHODS, [...target.safeTools, 'nope_tool', 'k_', '_echo']);
  const body = fc.oneof(
    { weight: 5, arbitrary: rpc.map((value) => JSON.stringify(value)) },
    { weight: 2, arbitrary: fc.array(rpc, { maxLength: 4 }).map((value) => JSON.stringify(value)) },
    { weight: 2, arbitrary: responseShape.map((value) => JSON.stringify(value)) },
    {
      weight: 1,
      arbitrary: fc
        .array(fc.oneof(responseShape, rpc), { minLength: 1, maxLength: 3 })
        .map((value) => JSON.stringify(value)),
    },
    { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 4 }).map((value) => JSON.stringify(value)) },
    { weight: 3, arbitrary: brokenBody },
  );
  const request = fc
    .record({
      method: fc.oneof(
        { weight: 8, arbitrary: fc.constant('POST') },
        fc.constantFrom(...OTHER_METHODS),
      ),
      path: mcpPaths,
      host: hostVariants(target.port),
      origin: originVariants,
      authorization: authorizationVariants(target.sessionToken, target.otherTokens),
      contentType: contentTypeVariants,
      extra: mcpHeaders,
      body: fc.option(body, { freq: 12 }),
    })
    .map(({ method, path, host, origin, authorization, contentType, extra, body }) => {
      const headers: Record<string, string | undefined> = {
        ...extra,
        host,
        origin,
        authorization,
        'content-type': contentType,
      };
      return {
        method,
        path,
        headers,
        ...(body !== null && { body }),
        authorized: authorizedBy(headers, target.sessionToken, target.port),
      } satisfies HostileRequest;
    });
  return fc.sample(request, { seed, numRuns: count });
}

/** Well-formed 2025-06-18 requests with the right token: each must get a JSON-RPC result. */
export function validMcpRequests(target: McpTarget, seed: number, count: number): HostileRequest[] {
  const message = fc.oneof(
    fc.constant({ method: 'ping', params: {} }),
    fc.constant({ method: 'tools/list', params: {} }),
    fc.constant({ method: 'resources/list', params: {} }),
    fc.constant({
      method: 'initialize',
      params: {
        protocolVersion: '2025-06-18',
        capabilities: {},
        clientInfo: { name: 'fuzz', version: '1' },
      },
    }),
    fc
      .record({
        name: fc.constantFrom(...target.safeTools),
        // Keys fastify's JSON parser refuses on purpose (prototype poisoning) belong to the
        // hostile set, not here.
        arguments: fc
          .dictionary(fc.string({ maxLength: 10 }), fc.jsonValue({ maxDepth: 2 }), {
            maxKeys: 3,
          })
          .filter((args) => !/"(__proto__|constructor|prototype)"\s*:/.test(JSON.stringify(args))),
      })
      .map((params) => ({ method: 'tools/call', params })),
  );
  const request = fc
    .record({
      id: fc.oneof(fc.integer({ min: 0 }), fc.string({ minLength: 1, maxLength: 12 })),
      message,
    })
    .map(({ id, message }) => ({
      method: 'POST',
      path: '/mcp/connector',
      headers: authorizedHeaders(target, { 'mcp-protocol-version': '2025-06-18' }),
      body: JSON.stringify({ jsonrpc: '2.0', id, ...message }),
      valid: true,
      authorized: true,
    }));
  return fc.sample(request, { seed, numRuns: count });
}

/** What the control API generator needs to know. */
export interface ControlTarget {
  readonly port: number;
  readonly controlToken: string;
  readonly otherTokens: readonly string[];
  /** A connector key that exists (the generator never changes it with the right token). */
  readonly installedKey: string;
}

const CONTROL_ROUTES = [
  ['GET', '/v1/connectors'],
  ['GET', '/v1/connectors/available'],
  ['POST', '/v1/connectors/install'],
  ['DELETE', '/v1/connectors/:key'],
  ['PUT', '/v1/connectors/:key/credentials'],
  ['DELETE', '/v1/connectors/:key/credentials'],
  ['POST', '/v1/sessions'],
  ['GET', '/v1/sessions'],
  ['DELETE', '/v1/sessions/:id'],
  ['GET', '/v1/providers'],
  ['GET', '/debug/registry'],
  ['GET', '/metrics'],
] as const;

/** Bodies aimed at the control routes' schemas: right shapes with wrong types, and junk. */
const controlBody = fc.oneof(
  fc
    .record(
      {
        workspaceId: fc.oneof(fc.string({ maxLength: 300 }), fc.jsonValue({ maxDepth: 2 })),
        agentSessionId: fc.oneof(fc.string({ maxLength: 300 }), fc.jsonValue({ maxDepth: 2 })),
        cwd: fc.oneof(fc.constantFrom('/tmp', 'relative', '', '/'), fc.jsonValue({ maxDepth: 2 })),
        env: fc.oneof(fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }), fc.jsonValue()),
        // Never a real provider name: a valid session request must not launch an agent.
        provider: fc.oneof(
          fc.string({ maxLength: 20 }).map((name) => `fuzz-${name}`),
          fc.constantFrom(null, 0, true, [], {}),
        ),
        load: fc.jsonValue({ maxDepth: 2 }),
        resume: fc.jsonValue({ maxDepth: 2 }),
        extra: fc.jsonValue({ maxDepth: 2 }),
      },
      { requiredKeys: [] },
    )
    .map((value) => JSON.stringify(value)),
  fc
    .record(
      {
        path: fc.oneof(
          fc.string({ maxLength: 50 }).map((name) => `/nonexistent-fuzz/${name}`),
          fc.string({ maxLength: 50 }),
          fc.jsonValue({ maxDepth: 1 }),
        ),
        secret: fc.oneof(fc.string({ maxLength: 40 }), fc.jsonValue({ maxDepth: 1 })),
      },
      { requiredKeys: [] },
    )
    .map((value) => JSON.stringify(value)),
  fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)),
  brokenBody,
);

/** Hostile requests against the control API (`count`, reproducible from `seed`). */
export function controlRequests(
  target: ControlTarget,
  seed: number,
  count: number,
): HostileRequest[] {
  const key = fc.oneof(
    fc.constantFrom('nosuch', '..', '%2e%2e', 'a'.repeat(300), '%00', 'k%2Fx', '__proto__'),
    fc.string({ minLength: 1, maxLength: 20 }).map((text) => encodeURIComponent(text)),
  );
  const route = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom(...CONTROL_ROUTES) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom('GET', 'POST', ...OTHER_METHODS), fc.webPath()),
    },
  );
  const request = fc
    .record({
      route,
      method: fc.option(fc.constantFrom('GET', 'POST', ...OTHER_METHODS), { freq: 4 }),
      key,
      query: fc.option(fc.webQueryParameters(), { freq: 5 }),
      host: hostVariants(target.port),
      origin: originVariants,
      authorization: authorizationVariants(target.controlToken, target.otherTokens),
      contentType: contentTypeVariants,
      body: fc.option(controlBody, { freq: 6 }),
    })
    .map(({ route, method, key, query, host, origin, authorization, contentType, body }) => {
      const headers: Record<string, string | undefined> = {
        host,
        origin,
        authorization,
        'content-type': contentType,
      };
      const authorized = authorizedBy(headers, target.controlToken, target.port);
      const verb = method ?? route[0];
      let path = route[1].replace(':key', key).replace(':id', key) || '/';
      // The right token never removes the connector the other checks rely on.
      if (authorized && verb !== 'GET' && path.includes(`/${target.installedKey}`)) {
        path = path.replace(`/${target.installedKey}`, '/nosuch');
      }
      if (query !== null) path += `?${query}`;
      return {
        method: verb,
        path,
        headers,
        ...(body !== null && { body }),
        authorized,
      } satisfies HostileRequest;
    });
  return fc.sample(request, { seed, numRuns: count });
}

/**
 * Well-formed JSON-RPC responses with the right token, none answering anything the server
 * asked: each must be taken with 202 and no body, whatever era its headers name.
 */
export function takenMcpResponses(
  target: McpTarget,
  seed: number,
  count: number,
): HostileRequest[] {
  const request = fc
    .record({
      response: wellFormedResponse,
      version: fc.constantFrom(undefined, '2025-06-18', '2025-03-26', '2026-07-28'),
    })
    .map(({ response, version }) => ({
      method: 'POST',
      path: '/mcp/connector',
      headers: authorizedHeaders(
        target,
        version === undefined ? {} : { 'mcp-protocol-version': version },
      ),
      body: JSON.stringify(response),
      taken: true,
      authorized: true,
    }));
  return fc.sample(request, { seed, numRuns: count });
}
