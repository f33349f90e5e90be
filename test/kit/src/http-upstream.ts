/**
 * The Streamable HTTP MCP upstream fixture, started in the test's own process: eras `both`
 * (2026-07-28 with subscriptions/listen, and stateless 2025), `legacy` (stateless 2025) or
 * `stateful` (2025 with sessions, so it can elicit), an optional bearer token, N generated
 * tools, paging (see fixtures/upstream/http-server.mjs).
 */
// @ts-expect-error: a plain .mjs fixture without type declarations (its answer is read as any)
export { startHttpUpstream } from '../fixtures/upstream/http-server.mjs';
