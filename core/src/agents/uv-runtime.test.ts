import { describe, expect, it } from 'vitest';
import { uvPipInstallArgs } from './uv-runtime.js';

describe('the uv install command', () => {
  it('installs wheels only, so no source distribution builds, unless install scripts are allowed', () => {
    expect(uvPipInstallArgs('/v/bin/python', 'fast-agent-mcp==0.4.2', false)).toEqual([
      'pip',
      'install',
      '--quiet',
      '--python',
      '/v/bin/python',
      '--only-binary',
      ':all:',
      'fast-agent-mcp==0.4.2',
    ]);
    expect(uvPipInstallArgs('/v/bin/python', 'fast-agent-mcp==0.4.2', true)).toEqual([
      'pip',
      'install',
      '--quiet',
      '--python',
      '/v/bin/python',
      'fast-agent-mcp==0.4.2',
    ]);
  });
});
