import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../', import.meta.url));

/** Each workspace package entry tests import, and the source file it must resolve to. */
const ENTRIES: [string, string][] = [
  ['@tutti/core', 'core/src/index.ts'],
  ['@tutti/core/client', 'core/src/client.ts'],
  ['@tutti/core/internal', 'core/src/internal.ts'],
  ['@tutti/provider-acp', 'providers/acp/src/index.ts'],
  ['@tutti/provider-app-server', 'providers/app-server/src/index.ts'],
  ['@tutti/provider-claude-sdk', 'providers/claude-sdk/src/index.ts'],
  ['@tutti/test-kit', 'test/kit/src/index.ts'],
  ['@tutti/test-kit/tuttid', 'test/kit/src/tuttid.ts'],
  ['@tutti/test-kit/core/fake-connector', 'test/kit/src/core/fake-connector.ts'],
];

describe('tests run against the sources', () => {
  it.each(ENTRIES)('%s resolves to its TypeScript source, not to dist', async (name, source) => {
    expect(import.meta.resolve(name)).toBe(new URL(source, `file://${root}`).href);
    // The very module instance of the source file: nothing was loaded from a build.
    expect(await import(name)).toBe(await import(`${root}${source}`));
  });
});
