import { describe, expect, it } from 'vitest';
import { isTuttiError } from '@tutti/core';
import { parseTuttidArgs } from './tuttid.js';

describe('tuttid arguments', () => {
  it('takes a release size cap in MiB and leaves the default otherwise', () => {
    const env = { TUTTI_HOME: '/tmp/tutti-args-home' };
    expect(parseTuttidArgs(['--max-release-mb', '1024'], env).maxReleaseMb).toBe(1024);
    expect(parseTuttidArgs([], env).maxReleaseMb).toBeUndefined();
  });

  it.each(['0', '-5', '1.5', 'lots'])('refuses --max-release-mb %s with a clear error', (value) => {
    let error: unknown;
    try {
      parseTuttidArgs([`--max-release-mb=${value}`], { TUTTI_HOME: '/tmp/x' });
    } catch (caught) {
      error = caught;
    }
    expect(isTuttiError(error, 'TUTTI_ERR_DAEMON_BAD_ARGUMENT')).toBe(true);
    expect((error as Error).message).toContain('--max-release-mb takes a whole number of MiB');
  });

  it('takes a session cap and leaves the default otherwise', () => {
    const env = { TUTTI_HOME: '/tmp/tutti-args-home' };
    expect(parseTuttidArgs(['--max-sessions', '8'], env).limits.maxSessions).toBe(8);
    expect(parseTuttidArgs([], env).limits.maxSessions).toBeUndefined();
    expect(() => parseTuttidArgs(['--max-sessions', '0'], env)).toThrow(
      '--max-sessions takes a whole number from 1 up',
    );
  });
});
