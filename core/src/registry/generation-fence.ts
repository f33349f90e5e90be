/**
 * Generation fences per connector key, shared by the MCP registry and the connector catalog.
 * A key's fence is the highest generation ever committed or removed for it, and it is kept
 * after removal, so a stale generation can never come back.
 */
import { TuttiError } from '../errors/index.js';

/** Throws TUTTI_ERR_REGISTRY_INVALID_GENERATION unless `generation` is a safe integer >= 0. */
export function assertGeneration(key: string, generation: unknown): asserts generation is number {
  if (typeof generation !== 'number' || !Number.isSafeInteger(generation) || generation < 0) {
    throw new TuttiError('TUTTI_ERR_REGISTRY_INVALID_GENERATION', {
      key,
      generation: String(generation).slice(0, 32),
    });
  }
}

/** The fences of every key ever seen. */
export interface GenerationFences {
  /** The key's fence, or undefined when no generation was ever committed or removed. */
  fenceOf(key: string): number | undefined;
  /** Throws TUTTI_ERR_REGISTRY_STALE_GENERATION when `generation` is at or below the fence. */
  assertNewer(key: string, generation: number): void;
  /** Raises the key's fence to `generation` (never lowers it). */
  raise(key: string, generation: number): void;
  /** Every fence, sorted by key. */
  entries(): { connectorKey: string; fence: number }[];
}

/** Creates an empty fence table. */
export function createGenerationFences(): GenerationFences {
  const fences = new Map<string, number>();
  return {
    fenceOf: (key) => fences.get(key),
    assertNewer(key, generation) {
      const fence = fences.get(key);
      if (fence !== undefined && generation <= fence) {
        throw new TuttiError('TUTTI_ERR_REGISTRY_STALE_GENERATION', { key, generation, fence });
      }
    },
    raise(key, generation) {
      const fence = fences.get(key);
      if (fence === undefined || generation > fence) fences.set(key, generation);
    },
    entries: () =>
      [...fences.keys()]
        .sort()
        .map((connectorKey) => ({ connectorKey, fence: fences.get(connectorKey)! })),
  };
}
