import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveHome } from './home.js';

describe('resolveHome', () => {
  it('prefers the --home flag over TUTTI_HOME', () => {
    expect(resolveHome({ flag: '/a', env: { TUTTI_HOME: '/b' } })).toBe('/a');
  });

  it('uses TUTTI_HOME when no flag is given', () => {
    expect(resolveHome({ flag: undefined, env: { TUTTI_HOME: '/srv/tutti' } })).toBe('/srv/tutti');
  });

  it('falls back to ~/.tutti', () => {
    expect(resolveHome({ env: {} })).toBe(join(homedir(), '.tutti'));
    expect(resolveHome({ env: { TUTTI_HOME: '' } })).toBe(join(homedir(), '.tutti'));
  });

  it('expands a leading ~/ and makes relative paths absolute', () => {
    expect(resolveHome({ env: { TUTTI_HOME: '~/t' } })).toBe(join(homedir(), 't'));
    expect(resolveHome({ flag: 'rel/home', env: {} })).toBe(resolve('rel/home'));
  });
});
