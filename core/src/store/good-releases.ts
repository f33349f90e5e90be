/**
 * `<home>/state/good-releases.json`: per installed key, the digests of its latest releases
 * that ran (became ready), newest first, at most two: what a rollback goes back to, and
 * what the release GC keeps besides the installed release. A file of its own, beside
 * `installed.json`, so a daemon that does not know it still reads the home it shares.
 * Damage is survived like `installed.json` (a last-good copy); losing it loses nothing
 * but the rollback candidates. An open store holds it as a {@link GoodReleaseRecord}.
 */
import { z } from 'zod';
import { isTuttiError, type TuttiError } from '../errors/index.js';
import { CONNECTOR_KEY_PATTERN } from '../manifest/index.js';
import { readGuardedJson, writeGuardedJson } from './guarded-json-file.js';

/** Most releases remembered per key. */
const KEPT = 2;

/** Zod schema of `good-releases.json`. */
export const goodReleasesSchema = z
  .object({
    version: z.literal(1),
    good: z.record(
      z.string().regex(CONNECTOR_KEY_PATTERN),
      z
        .array(z.string().regex(/^[0-9a-f]{64}$/))
        .max(KEPT)
        .readonly(),
    ),
  })
  .strict();

/** Contents of `good-releases.json`. */
export type GoodReleases = z.output<typeof goodReleasesSchema>;

/** No release ran yet. */
export const NO_GOOD_RELEASES: GoodReleases = Object.freeze({ version: 1, good: {} });

/** `releases` with `digest` recorded as the latest of `key` that ran. */
export function withGoodRelease(releases: GoodReleases, key: string, digest: string): GoodReleases {
  const ran = releases.good[key] ?? [];
  const next = [digest, ...ran.filter((known) => known !== digest)].slice(0, KEPT);
  return { ...releases, good: { ...releases.good, [key]: next } };
}

/** `releases` without the keys `keep` does not accept. */
export function onlyGoodReleasesOf(
  releases: GoodReleases,
  keep: (key: string) => boolean,
): GoodReleases {
  return {
    ...releases,
    good: Object.fromEntries(Object.entries(releases.good).filter(([key]) => keep(key))),
  };
}

/** The good releases of an open store: persisted before they become current. */
export interface GoodReleaseRecord {
  /** The latest release of `key` that ran other than `installed`: its rollback release. */
  rollbackOf(key: string, installed: string): string | undefined;
  /**
   * Records `digest` as the latest release of `key` that ran; writes nothing when it
   * already is. A change checks `signal` (its store change's) before it writes.
   */
  mark(key: string, digest: string, signal?: AbortSignal): Promise<void>;
  /** Forgets the releases of `key` (uninstalled); writes nothing when it knows none. */
  forget(key: string, signal?: AbortSignal): Promise<void>;
}

/**
 * Reads `file` as an opening store does, keeping the keys `installed` accepts (those of
 * keys no longer installed are forgotten). Damaged past repair, it costs only the rollback
 * candidates: the problem goes to `report` and the record starts afresh.
 */
export async function openGoodReleases(
  file: string,
  installed: (key: string) => boolean,
  report: (problem: TuttiError) => void,
): Promise<GoodReleaseRecord> {
  const read = await readGuardedJson(file, goodReleasesSchema, NO_GOOD_RELEASES).catch(
    (error: unknown) => {
      if (!isTuttiError(error)) throw error;
      return { value: NO_GOOD_RELEASES, problem: error };
    },
  );
  if (read.problem) report(read.problem);
  let current = onlyGoodReleasesOf(read.value, installed);
  const commit = async (next: GoodReleases, signal: AbortSignal | undefined) => {
    signal?.throwIfAborted();
    await writeGuardedJson(file, next);
    current = next;
  };
  return {
    rollbackOf: (key, installedDigest) =>
      (current.good[key] ?? []).find((digest) => digest !== installedDigest),
    async mark(key, digest, signal) {
      if (current.good[key]?.[0] === digest) return;
      await commit(withGoodRelease(current, key, digest), signal);
    },
    async forget(key, signal) {
      if (!(key in current.good)) return;
      await commit(
        onlyGoodReleasesOf(current, (other) => other !== key),
        signal,
      );
    },
  };
}
