/**
 * The `instructions` member of the `connector` server's `initialize` and `server/discover`
 * results: the registry's prepared instructions (every ready connector's, by key), as JSON
 * to splice into a result. Whatever a surface builds of it is built once per change of the
 * registry's instructions, never per request; with no instructions the member is omitted.
 */
import type { ConnectorMCPRegistry } from '../registry/types.js';

/**
 * A reader of `build(member)` for the registry's current instructions, where `member` is
 * `,"instructions":"<text>"` or empty; `build` runs again only when they changed.
 * @example const discover = perInstructions(registry, (member) => `{"capabilities":{}${member}}`);
 */
export function perInstructions<T>(
  registry: Pick<ConnectorMCPRegistry, 'instructions'>,
  build: (member: string) => T,
): () => T {
  let version: number | undefined;
  let built!: T;
  return () => {
    const current = registry.instructions();
    if (current.version !== version) {
      const { text } = current;
      built = build(text === undefined ? '' : `,"instructions":${JSON.stringify(text)}`);
      version = current.version;
    }
    return built;
  };
}
