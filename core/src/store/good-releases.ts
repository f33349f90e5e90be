/**
 * `<home>/state/good-releases.json`: per installed key, the digests of its latest releases
 * that ran (became ready), newest first, at most two: what a rollback goes back to, and
 * what the release GC keeps besides the installed release. A file of its own, beside
 * `installed.json`, so a daemon that does not know it still reads the home it shares.
 * Damage is survived like `installed.json` (a last-good copy); losing it loses nothing
 * but the rollback candidates.
 */
import { z } from 'zod';
import { CONNECTOR_KEY_PATTERN } from '../manifest/index.js';

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
