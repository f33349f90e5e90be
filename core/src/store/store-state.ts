/**
 * The shape of `<home>/state/installed.json`: which release digest is installed per key,
 * and the last revision taken per key (kept after uninstall, so revisions never repeat);
 * and the changes a store makes to it, each at a new revision of its key.
 */
import { z } from 'zod';
import { CONNECTOR_KEY_PATTERN } from '../manifest/index.js';

/** One installed connector as recorded on disk. */
export const installedRecordSchema = z
  .object({
    digest: z.string().regex(/^[0-9a-f]{64}$/),
    installedAt: z.string(),
  })
  .strict();

/** Zod schema of `installed.json`. */
export const storeStateSchema = z
  .object({
    version: z.literal(1),
    connectors: z.record(z.string().regex(CONNECTOR_KEY_PATTERN), installedRecordSchema),
    revisions: z.record(z.string().regex(CONNECTOR_KEY_PATTERN), z.number().int().nonnegative()),
  })
  .strict()
  .refine(
    (state) => Object.keys(state.connectors).every((key) => (state.revisions[key] ?? 0) > 0),
    { message: 'an installed connector has no revision' },
  );

/** Contents of `installed.json`. */
export type StoreState = z.output<typeof storeStateSchema>;

/** The state of a home where nothing was ever installed. */
export const EMPTY_STATE: StoreState = Object.freeze({
  version: 1,
  connectors: {},
  revisions: {},
}) as StoreState;

/** `state` with a new revision of `key`. */
export function withNextRevision(state: StoreState, key: string): StoreState {
  return { ...state, revisions: { ...state.revisions, [key]: (state.revisions[key] ?? 0) + 1 } };
}

/** `state` with release `digest` installed as `key` at `installedAt`, at a new revision. */
export function withInstalled(
  state: StoreState,
  key: string,
  digest: string,
  installedAt: string,
): StoreState {
  const connectors = { ...state.connectors, [key]: { digest, installedAt } };
  return { ...withNextRevision(state, key), connectors };
}

/** `state` without the installed `key`, at a new revision. */
export function withoutInstalled(state: StoreState, key: string): StoreState {
  const { [key]: _removed, ...connectors } = state.connectors;
  return { ...withNextRevision(state, key), connectors };
}
