import { defineConfig } from 'vitest/config';

// Tests import workspace packages from their TypeScript sources (the `tutti-source`
// export condition), so `npm test` never runs against a stale build. Test files run in
// Vite's SSR environment, whose resolver takes `ssr.resolve.conditions`, not the top-level
// ones: without it `@tutti/core` resolved to core/dist (test/workspace-sources.test.ts).
export default defineConfig({
  resolve: { conditions: ['tutti-source'] },
  ssr: { resolve: { conditions: ['tutti-source'] } },
  test: {
    include: [
      'core/src/**/*.test.ts',
      'cli/src/**/*.test.ts',
      'providers/*/src/**/*.test.ts',
      'plugins/*/src/**/*.test.ts',
      'test/**/*.test.ts',
    ],
    // A bound for a busy machine (the suite runs on 2 cores beside other work), not a time
    // a test measures: a test ends when it is done. Waits inside tests take the test kit's
    // bound (WAIT_BOUND_MS, the same 120 s).
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // The same bound for an `expect.poll` that names none (vitest's own default is 1 s).
    expect: { poll: { timeout: 120_000 } },
    pool: 'forks',
    reporters: ['default', './test/kit/src/summary-reporter.ts'],
  },
});
