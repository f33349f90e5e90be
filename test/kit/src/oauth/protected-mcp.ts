/**
 * A Streamable HTTP MCP server that is an OAuth protected resource, for tests of the
 * daemon's OAuth client: it validates JWT bearer tokens with jose (issuer, audience = its
 * own URL, `typ at+jwt`, signature from the issuer's JWKS), serves its RFC 9728 metadata at
 * `/.well-known/oauth-protected-resource/mcp`, and answers a missing or refused token with
 * 401 `WWW-Authenticate: Bearer resource_metadata=...`, a token without a required scope
 * with 403 `insufficient_scope` (step-up). One tool, `echo`. It counts calls and refusals.
 */
import { toNodeHandler } from '@modelcontextprotocol/node';
import {
  bearerAuthChallengeResponse,
  createMcpHandler,
  McpServer,
  OAuthError,
  OAuthErrorCode,
  verifyBearerToken,
} from '@modelcontextprotocol/server';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { z } from 'zod';
import { closeServer, createServer, listenLoopback } from './listen.js';

/** Options of {@link startProtectedMcp}. */
export interface ProtectedMcpOptions {
  /** The authorization server's issuer (its JWKS is `jwksUrl`, default `<issuer>/jwks`). */
  readonly issuer: string;
  readonly jwksUrl?: string;
  /** Scopes every request's token must carry (default none). */
  readonly requiredScopes?: readonly string[];
}

/** A running protected MCP server; see the module doc. */
export interface ProtectedMcp {
  /** The MCP endpoint, `http://127.0.0.1:<port>/mcp` (also the token audience). */
  readonly url: string;
  readonly resourceMetadataUrl: string;
  /** Requests answered 200 with a valid token, `tools/call` requests among them, 401s, 403s. */
  readonly counts: { ok: number; toolCalls: number; unauthorized: number; forbidden: number };
  /** Access tokens (their last 8 characters) accepted so far, in order of first use. */
  readonly tokensSeen: string[];
  /** Refuses (401) every token accepted so far, as a server that revoked them would. */
  refuseTokensSeen(): void;
  /** Refuses (401) every token from now on, fresh ones too (`false` ends it). */
  refuseEveryToken(on: boolean): void;
  /** Changes the scopes required from now on (step-up). */
  requireScopes(scopes: readonly string[]): void;
  close(): Promise<void>;
}

/** Starts the server; see the module doc. */
export async function startProtectedMcp(options: ProtectedMcpOptions): Promise<ProtectedMcp> {
  const server = createServer();
  const port = await listenLoopback(server);
  const url = `http://127.0.0.1:${port}/mcp`;
  const resourceMetadataUrl = `http://127.0.0.1:${port}/.well-known/oauth-protected-resource/mcp`;
  const jwks = createRemoteJWKSet(new URL(options.jwksUrl ?? `${options.issuer}/jwks`));
  let requiredScopes = [...(options.requiredScopes ?? [])];
  const counts = { ok: 0, toolCalls: 0, unauthorized: 0, forbidden: 0 };
  const tokensSeen: string[] = [];
  const accepted = new Set<string>();
  const refused = new Set<string>();
  let refuseAll = false;
  const verifier = {
    async verifyAccessToken(token: string) {
      if (refuseAll || refused.has(token)) {
        throw new OAuthError(OAuthErrorCode.InvalidToken, 'the token was revoked');
      }
      try {
        const { payload } = await jwtVerify(token, jwks, {
          issuer: options.issuer,
          audience: url,
          typ: 'at+jwt',
        });
        return {
          token,
          clientId: String(payload.client_id ?? ''),
          scopes: String(payload.scope ?? '')
            .split(' ')
            .filter(Boolean),
          ...(payload.exp !== undefined ? { expiresAt: payload.exp } : {}),
          resource: new URL(url),
        };
      } catch (error) {
        throw new OAuthError(
          OAuthErrorCode.InvalidToken,
          `the token is not valid (${(error as { code?: string }).code ?? 'unreadable'})`,
        );
      }
    },
  };
  const handler = createMcpHandler(() => {
    const mcp = new McpServer({ name: 'protected-mcp', version: '1.0.0' });
    mcp.registerTool(
      'echo',
      { description: 'Answers its text.', inputSchema: { text: z.string() } },
      async ({ text }) => {
        counts.toolCalls += 1;
        return { content: [{ type: 'text', text: `echo:${text}` }] };
      },
    );
    return mcp;
  });
  const node = toNodeHandler(handler);
  server.on('request', (req, res) => {
    void (async () => {
      if (req.url === '/.well-known/oauth-protected-resource/mcp') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(
          JSON.stringify({
            resource: url,
            authorization_servers: [options.issuer],
            scopes_supported: ['mcp:tools'],
            bearer_methods_supported: ['header'],
          }),
        );
        return;
      }
      if (!req.url?.startsWith('/mcp')) {
        res.writeHead(404).end();
        return;
      }
      try {
        const info = await verifyBearerToken(req.headers.authorization, {
          verifier,
          requiredScopes,
          expectedResource: new URL(url),
          resourceMetadataUrl,
        });
        accepted.add(info.token);
        const tail = info.token.slice(-8);
        if (!tokensSeen.includes(tail)) tokensSeen.push(tail);
        counts.ok += 1;
      } catch (error) {
        const answer = bearerAuthChallengeResponse(error, { requiredScopes, resourceMetadataUrl });
        if (answer.status === 401) counts.unauthorized += 1;
        if (answer.status === 403) counts.forbidden += 1;
        res.writeHead(answer.status, Object.fromEntries(answer.headers));
        res.end(await answer.text());
        return;
      }
      await node(req, res);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  return {
    url,
    resourceMetadataUrl,
    counts,
    tokensSeen,
    refuseTokensSeen() {
      for (const token of accepted) refused.add(token);
    },
    refuseEveryToken(on) {
      refuseAll = on;
    },
    requireScopes(scopes) {
      requiredScopes = [...scopes];
    },
    async close() {
      await handler.close();
      await closeServer(server);
    },
  };
}
