/** `npm run check:cycles` (part of `npm run check`) fails on any import cycle, type-only ones too. */
import { afterEach, describe, expect, it } from 'vitest';
import { removeProjects, runCheck, tempProject } from '@tutti/test-kit/run-check';

afterEach(removeProjects);

const TSCONFIG = JSON.stringify({ compilerOptions: { module: 'NodeNext', strict: true } });

describe('the import-cycle check', () => {
  it('passes a project whose modules import each other one way only', async () => {
    const dir = await tempProject({
      'tsconfig.json': TSCONFIG,
      'core/src/hooks.ts':
        "import type { Context } from './types.js';\nexport const hook = (c: Context) => c;\n",
      'core/src/types.ts': 'export interface Context { id: string }\n',
    });
    const { status, output } = runCheck('check:cycles', dir);
    expect(output).toContain('no circular dependency');
    expect(status).toBe(0);
  });

  it('fails on a cycle made only of type imports, naming its files', async () => {
    const dir = await tempProject({
      'tsconfig.json': TSCONFIG,
      'core/src/hooks.ts':
        "import type { Context } from './types.js';\nexport interface Hooks { run(c: Context): void }\n",
      'core/src/types.ts':
        "import type { Hooks } from './hooks.js';\nexport interface Context { hooks: Hooks }\n",
    });
    const { status, output } = runCheck('check:cycles', dir);
    expect(status).not.toBe(0);
    expect(output).toMatch(
      /core\/src\/hooks\.ts.*core\/src\/types\.ts|core\/src\/types\.ts.*core\/src\/hooks\.ts/s,
    );
  });

  it('fails on a cycle across folders (a provider and a test helper)', async () => {
    const dir = await tempProject({
      'tsconfig.json': TSCONFIG,
      'providers/x/src/a.mjs':
        "import { b } from '../../../test/support/b.mjs';\nexport const a = () => b;\n",
      'test/support/b.mjs':
        "import { a } from '../../providers/x/src/a.mjs';\nexport const b = () => a;\n",
    });
    const { status } = runCheck('check:cycles', dir);
    expect(status).not.toBe(0);
  });
});
