import { describe, expect, it } from 'vitest';
import {
  LOCAL_NAME_MAX_LENGTH,
  assertConnectorKey,
  isConnectorKey,
  toLocalName,
} from './local-name.js';

describe('connector keys', () => {
  it('accepts 1-32 lowercase letters, digits and "-" not starting with "-"', () => {
    for (const key of ['a', 'github', 'my-tool-2', '0x', 'a'.repeat(32)]) {
      expect(isConnectorKey(key), key).toBe(true);
    }
  });

  it('rejects "_", uppercase, a leading "-", the empty key and keys over 32 characters', () => {
    for (const key of ['', 'git_hub', 'GitHub', '-a', 'a'.repeat(33), 'a.b', 'ä', 5, undefined]) {
      expect(isConnectorKey(key), String(key)).toBe(false);
      expect(() => assertConnectorKey(key)).toThrow(
        expect.objectContaining({ code: 'TUTTI_ERR_REGISTRY_INVALID_KEY' }),
      );
    }
  });
});

describe('toLocalName', () => {
  it('joins key and tool with "_" when the tool name is already canonical', () => {
    expect(toLocalName('github', 'search_issues')).toBe('github_search_issues');
    expect(toLocalName('a-b', 'Get-Thing_2')).toBe('a-b_Get-Thing_2');
  });

  it('maps every character outside [A-Za-z0-9_-] to one "_"', () => {
    expect(toLocalName('fs', 'read.file')).toBe('fs_read_file');
    expect(toLocalName('fs', 'a b/c:d')).toBe('fs_a_b_c_d');
    expect(toLocalName('fs', 'héllo😀')).toBe('fs_h_llo_');
  });

  it('keeps a name of exactly 48 characters as it is', () => {
    const tool = 't'.repeat(LOCAL_NAME_MAX_LENGTH - 'gh_'.length);
    expect(toLocalName('gh', tool)).toBe(`gh_${tool}`);
  });

  it('shortens an over-long name to 48 characters ending in a hash of the upstream name', () => {
    const tool = `${'x'.repeat(60)}_tail`;
    const local = toLocalName('notion', tool);
    expect(local).toHaveLength(LOCAL_NAME_MAX_LENGTH);
    expect(local).toMatch(/^notion_x+_[0-9a-f]{8}$/);
    expect(toLocalName('notion', tool)).toBe(local);
  });

  it('gives different upstream names with the same long head different local names', () => {
    const head = 'y'.repeat(70);
    expect(toLocalName('k', `${head}1`)).not.toBe(toLocalName('k', `${head}2`));
  });

  it('keeps the key prefix and the length bound for the longest key', () => {
    const key = 'k'.repeat(32);
    const local = toLocalName(key, 'z'.repeat(100));
    expect(local.startsWith(`${key}_`)).toBe(true);
    expect(local).toHaveLength(LOCAL_NAME_MAX_LENGTH);
    expect(local).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('hashes the exact upstream name, so names that map alike still differ when shortened', () => {
    const tail = 'q'.repeat(60);
    expect(toLocalName('k', `a.${tail}`)).not.toBe(toLocalName('k', `a_${tail}`));
  });
});
