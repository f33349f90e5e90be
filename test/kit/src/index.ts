/**
 * `@tutti/test-kit`: the test support of tutti-connector, for the tests of every package
 * and for the benches. This entry holds what most tests need and loads nothing of the
 * product: the fixtures' paths, temp folders and homes, connector releases, the home
 * fixtures of earlier releases and a raw MCP call. The rest is one subpath per module:
 * `@tutti/test-kit/tuttid` (a real daemon), `/scripted-model` (a model for real agents,
 * paced for the benches), `/agent-daemon`, `/agent-turns`, `/processes`, ... (see
 * docs/testing.md). Tests resolve it to `src/` (the `tutti-source` condition), the bench
 * to `dist/`.
 */
export {
  type Archive,
  binaryAgentArchive,
  binaryEntry,
  type ExtensionSpec,
  npxEntry,
  platformKey,
  type PublisherKeys,
  publisherKeys,
  RECORDING_AGENT_DIR,
  RECORDING_AGENT_PACKAGE,
  type SignedExtension,
  sha256Of,
  signedExtension,
} from './agent-packages.js';
export {
  copyHomeFixture,
  homeSnapshot,
  type ServedByHome,
  servedByHomeFixture,
} from './home-fixtures.js';
export {
  type McpAnswer,
  type McpBinding,
  type McpRequestOptions,
  mcpRequest,
} from './mcp-request.js';
export { type NpmMirror, type NpmMirrorOptions, startNpmMirror } from './npm-mirror.js';
export {
  AUDIT_PLUGIN,
  CODEX_BIN,
  CONNECTOR_FIXTURES,
  DYING_SERVER,
  FAULTY_AGENT,
  FAULTY_CLAUDE,
  FIXTURES,
  HOME_FIXTURES,
  HTTP_SERVER,
  HUGE_LINE_SERVER,
  NODE_BIN_DIR,
  RECORD_MODULES,
  REPO_ROOT,
  SCRIPTED_ACP_AGENT,
  SHIM_TARGET,
  SILENT_SERVER,
  STDIO_SERVER,
  THROW_ON_SIGNAL,
  TS_LOADER,
  TUTTI_AGENT_BIN,
  TUTTI_BIN,
  TUTTID_BIN,
  TUTTID_FROM_SOURCE,
  UPSTREAM_FIXTURES,
} from './paths.js';
export { fixtureCopy, type ReleaseSpec, writeRelease } from './releases.js';
export { type TarEntry, tarGz } from './tar-fixtures.js';
export { cleanUp, type TempHomes, tempDir, tempHomes } from './temp-dirs.js';
export { WAIT, WAIT_BOUND_MS } from './waits.js';
