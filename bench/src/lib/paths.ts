/** Paths of the repository the benches run against (the same from src/lib and dist/lib). */
import { fileURLToPath } from 'node:url';

/** The repository's root folder, with a trailing slash. */
export const REPO = fileURLToPath(new URL('../../../', import.meta.url));

/** The stdio MCP fixture server of the tests (it imports the SDK, so it runs from the repository). */
export const STDIO_SERVER = `${REPO}test/fixtures/upstream/stdio-server.mjs`;

/** The CLI package: its bins run `cli/dist`. */
export const CLI_DIR = `${REPO}cli/`;

/** `node_modules/.bin` of the root, where the agents the end-to-end tests run live. */
export const ROOT_BIN = `${REPO}node_modules/.bin/`;
