/**
 * `npm run check:deps` (part of `npm run check`) fails on a dependency a workspace imports
 * without declaring it, and on one it declares without importing it.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { removeProjects, runCheck, tempProject } from '@tutti/test-kit/run-check';

afterEach(removeProjects);

/** A root with one workspace `core` whose package.json declares `dependencies`. */
function project(dependencies: Record<string, string>, source: string): Promise<string> {
  return tempProject({
    'package.json': JSON.stringify({ name: 'tmp-root', private: true, workspaces: ['core'] }),
    'core/package.json': JSON.stringify({
      name: '@tmp/core',
      version: '0.0.0',
      type: 'module',
      exports: './src/index.ts',
      dependencies,
    }),
    'core/src/index.ts': source,
  });
}

describe('the dependency check', () => {
  it('passes a workspace that declares exactly what it imports', async () => {
    const dir = await project(
      { zod: '^4.0.0' },
      "import { z } from 'zod';\nexport const id = z.string();\n",
    );
    const { status, output } = runCheck('check:deps', dir);
    expect(output).not.toMatch(/Unused|Unlisted/);
    expect(status).toBe(0);
  });

  it('fails on a dependency imported but not declared, naming it and the file', async () => {
    const dir = await project(
      { zod: '^4.0.0' },
      "import { z } from 'zod';\nimport pino from 'pino';\nexport const log = pino();\nexport const id = z.string();\n",
    );
    const { status, output } = runCheck('check:deps', dir);
    expect(status).not.toBe(0);
    expect(output).toMatch(/Unlisted dependencies[\s\S]*pino\s+core\/src\/index\.ts/);
  });

  it('fails on a dependency declared but not imported, naming it and the package.json', async () => {
    const dir = await project(
      { zod: '^4.0.0', 'json-rpc-2.0': '1.8.1' },
      "import { z } from 'zod';\nexport const id = z.string();\n",
    );
    const { status, output } = runCheck('check:deps', dir);
    expect(status).not.toBe(0);
    expect(output).toMatch(/Unused dependencies[\s\S]*json-rpc-2\.0\s+core\/package\.json/);
  });
});
