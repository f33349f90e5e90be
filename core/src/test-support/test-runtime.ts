/**
 * Test doubles of the connector runtime (the kit, `@tutti/test-kit`, has the releases and
 * temp folders): a wired runtime on a temp home, and a logger that keeps its lines.
 * Imported by core's tests only.
 */
import { join } from 'node:path';
import { tempDir } from '@tutti/test-kit';
import { createConnectorMCPRegistry } from '../registry/index.js';
import { createConnectorCatalog } from '../catalog/index.js';
import { openStore } from '../store/index.js';
import {
  type ConnectorRuntimeOptions,
  createConnectorRuntime,
} from '../runtime/connector-runtime.js';
import type { RuntimeLogger } from '../runtime/types.js';

/** A logger that keeps every line, so tests can check nothing secret was logged. */
export function memoryLogger(): RuntimeLogger & { lines: string[] } {
  const lines: string[] = [];
  const log = (object: object, message?: string) => {
    lines.push(`${message ?? ''} ${JSON.stringify(object)}`);
  };
  return { lines, debug: log, info: log, warn: log, error: log };
}

/** A runtime on a fresh temp home with a real store, registry and connector catalog. */
export async function createTestRuntime(overrides: Partial<ConnectorRuntimeOptions> = {}) {
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
