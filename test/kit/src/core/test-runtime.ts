/**
 * Test doubles of the connector runtime: a wired runtime on a temp home, and a logger that
 * keeps its lines. Imported by core's tests only.
 */
import { join } from 'node:path';
import {
  type ConnectorMCPRegistry,
  type ConnectorRuntimeOptions,
  createConnectorCatalog,
  createConnectorMCPRegistry,
  createConnectorRuntime,
  openStore,
  type RuntimeLogger,
} from '@tutti/core/internal';
import { tempDir } from '../temp-dirs.js';

/** A logger that keeps every line, so tests can check nothing secret was logged. */
export function memoryLogger(): RuntimeLogger & { lines: string[] } {
  const lines: string[] = [];
  const log = (object: object, message?: string) => {
    lines.push(`${message ?? ''} ${JSON.stringify(object)}`);
  };
  return { lines, debug: log, info: log, warn: log, error: log };
}

/** A runtime and the parts it was made of. */
export interface TestRuntime {
  readonly home: string;
  readonly store: Awaited<ReturnType<typeof openStore>>;
  readonly registry: ConnectorMCPRegistry;
  readonly catalog: ReturnType<typeof createConnectorCatalog>;
  readonly logger: ReturnType<typeof memoryLogger>;
  readonly binDir: string;
  readonly runtime: ReturnType<typeof createConnectorRuntime>;
}

/** A runtime on a fresh temp home with a real store, registry and connector catalog. */
export async function createTestRuntime(
  overrides: Partial<ConnectorRuntimeOptions> = {},
): Promise<TestRuntime> {
  const home = await tempDir('tutti-home-');
  const store = await openStore(home);
  const registry = createConnectorMCPRegistry();
  const catalog = createConnectorCatalog();
  const logger = memoryLogger();
  const binDir = join(home, 'bin');
  const runtime = createConnectorRuntime({
    store,
    registry,
    catalog,
    binDir,
    logger,
    backoff: { initialMs: 20, maxMs: 200 },
    ...overrides,
  });
  return { home, store, registry, catalog, logger, binDir, runtime };
}
