import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { isTuttiError } from '../errors/index.js';
import { LAST_GOOD_SUFFIX, readGuardedJson, writeGuardedJson } from './guarded-json-file.js';

const schema = z.object({ count: z.number() }).strict();
let dir: string;
let file: string;

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tutti-guarded-'));
  file = join(dir, 'state.json');
});

afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('guarded JSON state files', () => {
  it('reads the empty value when neither the file nor its copy exists', async () => {
    expect(await readGuardedJson(file, schema, { count: 0 })).toEqual({ value: { count: 0 } });
  });

  it('writes the file and an identical last-good copy', async () => {
    await writeGuardedJson(file, { count: 3 });
    expect(await readFile(file, 'utf8')).toBe(await readFile(file + LAST_GOOD_SUFFIX, 'utf8'));
    expect(await readGuardedJson(file, schema, { count: 0 })).toEqual({ value: { count: 3 } });
  });

  it('restores the last good copy of a truncated file, keeps the damaged one and reports it', async () => {
    await writeGuardedJson(file, { count: 7 });
    await writeFile(file, '{"cou');
    const read = await readGuardedJson(file, schema, { count: 0 });
    expect(read.value).toEqual({ count: 7 });
    expect(isTuttiError(read.problem, 'TUTTI_ERR_STORE_STATE_RESTORED')).toBe(true);
    expect(read.problem?.message).toContain(`State file "${file}" was corrupt (`);
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ count: 7 });
    const kept = (await readdir(dir)).filter((name) => name.includes('.corrupt-'));
    expect(kept).toHaveLength(1);
    expect(await readFile(join(dir, kept[0]!), 'utf8')).toBe('{"cou');
    expect(read.problem?.message).toContain(kept[0]);
  });

  it('restores the last good copy when the file holds valid JSON of the wrong shape', async () => {
    await writeGuardedJson(file, { count: 2 });
    await writeFile(file, '{"count":"two"}');
    const read = await readGuardedJson(file, schema, { count: 0 });
    expect(read.value).toEqual({ count: 2 });
    expect(read.problem?.message).toContain('count: ');
  });

  it('restores a deleted file from its last good copy', async () => {
    await writeGuardedJson(file, { count: 5 });
    await rm(file);
    const read = await readGuardedJson(file, schema, { count: 0 });
    expect(read.value).toEqual({ count: 5 });
    expect(read.problem?.code).toBe('TUTTI_ERR_STORE_STATE_RESTORED');
    expect(JSON.parse(await readFile(file, 'utf8'))).toEqual({ count: 5 });
  });

  it('throws TUTTI_ERR_STORE_STATE_CORRUPT naming the file when no good copy exists', async () => {
    await writeFile(file, 'not json');
    await writeFile(file + LAST_GOOD_SUFFIX, '{"count":');
    const error = await readGuardedJson(file, schema, { count: 0 }).catch((e: unknown) => e);
    expect(isTuttiError(error, 'TUTTI_ERR_STORE_STATE_CORRUPT')).toBe(true);
    expect((error as Error).message).toMatch(
      new RegExp(`^State file "${file}" is corrupt \\(.+\\) and no good copy exists: move it`),
    );
    expect(await readFile(file, 'utf8')).toBe('not json');
  });
});
