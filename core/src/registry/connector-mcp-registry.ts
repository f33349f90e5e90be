/**
 * The ConnectorMCPRegistry: one immutable route per connector (its complete tool set and
 * its upstream's instructions at one generation), swapped atomically and fenced by
 * generation, plus the prepared `tools/list` snapshot and list-changed events that fire
 * only on a visible change, and the server's instructions, prepared once per change.
 */
import { randomBytes } from 'node:crypto';
import type { ToolBinding, UpstreamClient, UpstreamTool } from '../contracts/index.js';
import { instructionsBlock, joinInstructions } from '../guidance/connector-instructions.js';
import { type PreparedTool, compareCodeUnits, prepareConnectorTools } from './connector-tools.js';
import { assertGeneration, createGenerationFences } from './generation-fence.js';
import { assertConnectorKey, toolPrefix } from './local-name.js';
import { createToolsSnapshot } from './tools-snapshot.js';
import type {
  ConnectorMCPRegistry,
  ListChangedListener,
  RegistryDebugSnapshot,
  ServerInstructions,
  ToolsSnapshot,
} from './types.js';

/** Options of {@link createConnectorMCPRegistry}. */
export interface ConnectorMCPRegistryOptions {
  /** Told when a list-changed listener throws; default: a process warning. */
  onListenerError?: (error: unknown) => void;
}

/** One committed route: never mutated; replaced as a whole. */
interface Route {
  readonly connectorKey: string;
  readonly generation: number;
  readonly client: UpstreamClient;
  readonly tools: readonly PreparedTool[];
  readonly bindings: ReadonlyMap<string, ToolBinding>;
  /** Its block of the server's instructions, prepared at commit; undefined: none. */
  readonly instructions: string | undefined;
}

function sameServedTools(a: readonly PreparedTool[], b: readonly PreparedTool[]): boolean {
  return a.length === b.length && a.every((tool, index) => tool.json === b[index]!.json);
}

function defaultListenerError(error: unknown): void {
  process.emitWarning(
    `A tools list-changed listener threw: ${error instanceof Error ? error.message : String(error)}`,
    'TuttiRegistryWarning',
  );
}

/**
 * Creates an empty registry.
 * @example
 * const registry = createConnectorMCPRegistry();
 * registry.commit('github', 1, client, await listAllTools(client), client.instructions);
 * registry.resolve('github_search_issues')?.client.callTool('search_issues', args);
 */
export function createConnectorMCPRegistry(
  options: ConnectorMCPRegistryOptions = {},
): ConnectorMCPRegistry {
  const onListenerError = options.onListenerError ?? defaultListenerError;
  const scope = randomBytes(4).toString('hex');
  const fences = createGenerationFences();
  const routes = new Map<string, Route>();
  const bindings = new Map<string, ToolBinding>();
  const listeners = new Set<ListChangedListener>();
  let snapshot = createToolsSnapshot(scope, 0, []);
  let instructions: ServerInstructions = Object.freeze({ version: 0, text: undefined });

  function bindRoute(
    connectorKey: string,
    generation: number,
    client: UpstreamClient,
    tools: readonly PreparedTool[],
    block: string | undefined,
  ): Route {
    const routeBindings = new Map<string, ToolBinding>();
    const route: Route = {
      connectorKey,
      generation,
      client,
      tools,
      bindings: routeBindings,
      instructions: block,
    };
    const isCurrent = () => routes.get(connectorKey) === route;
    for (const { record } of tools) {
      routeBindings.set(
        record.localName,
        Object.freeze({
          connectorKey,
          generation,
          localName: record.localName,
          upstreamName: record.upstreamName,
          client,
          isCurrent,
        }),
      );
    }
    return Object.freeze(route);
  }

  /** Swaps `next` in for `previous` (either may be absent) and publishes a visible change. */
  function swap(connectorKey: string, previous: Route | undefined, next: Route | undefined) {
    if (previous !== undefined) for (const name of previous.bindings.keys()) bindings.delete(name);
    if (next === undefined) routes.delete(connectorKey);
    else {
      routes.set(connectorKey, next);
      for (const [name, binding] of next.bindings) bindings.set(name, binding);
    }
    if (previous?.instructions !== next?.instructions) joinRouteInstructions();
    if (sameServedTools(previous?.tools ?? [], next?.tools ?? [])) return false;
    // Keys hold no `_`, so each connector's names form one block ordered by `<key>_`.
    const ordered = [...routes.values()]
      .sort((a, b) => compareCodeUnits(toolPrefix(a.connectorKey), toolPrefix(b.connectorKey)))
      .flatMap((route) => route.tools);
    snapshot = createToolsSnapshot(scope, snapshot.version + 1, ordered);
    const current = snapshot;
    for (const listener of [...listeners]) {
      try {
        listener(current);
      } catch (error) {
        onListenerError(error);
      }
    }
    return true;
  }

  /** Prepares the server's instructions again from the routes, in key order. */
  function joinRouteInstructions(): void {
    const blocks = [...routes.values()]
      .sort((a, b) => compareCodeUnits(a.connectorKey, b.connectorKey))
      .flatMap((route) => (route.instructions === undefined ? [] : [route.instructions]));
    const text = joinInstructions(blocks);
    if (text !== instructions.text) {
      instructions = Object.freeze({ version: instructions.version + 1, text });
    }
  }

  return Object.freeze({
    commit(
      connectorKey: string,
      generation: number,
      client: UpstreamClient,
      tools: readonly UpstreamTool[],
      upstreamInstructions?: string,
    ) {
      assertConnectorKey(connectorKey);
      assertGeneration(connectorKey, generation);
      fences.assertNewer(connectorKey, generation);
      const prepared = prepareConnectorTools(connectorKey, tools);
      const block = instructionsBlock(connectorKey, upstreamInstructions);
      const next = bindRoute(connectorKey, generation, client, prepared, block);
      fences.raise(connectorKey, generation);
      const listChanged = swap(connectorKey, routes.get(connectorKey), next);
      const localNames = Object.freeze(prepared.map((tool) => tool.record.localName));
      return Object.freeze({ connectorKey, generation, localNames, listChanged });
    },

    remove(connectorKey: string, generation: number): boolean {
      assertConnectorKey(connectorKey);
      assertGeneration(connectorKey, generation);
      fences.raise(connectorKey, generation);
      const route = routes.get(connectorKey);
      if (route === undefined || route.generation > generation) return false;
      swap(connectorKey, route, undefined);
      return true;
    },

    resolve: (localName: string) => bindings.get(localName),

    snapshot: (): ToolsSnapshot => snapshot,

    instructions: (): ServerInstructions => instructions,

    onListChanged(listener: ListChangedListener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },

    debugSnapshot(): RegistryDebugSnapshot {
      const live = [...routes.values()].sort((a, b) =>
        compareCodeUnits(a.connectorKey, b.connectorKey),
      );
      return {
        version: snapshot.version,
        toolCount: live.reduce((sum, route) => sum + route.tools.length, 0),
        routes: live.map((route) => ({
          connectorKey: route.connectorKey,
          generation: route.generation,
          fence: fences.fenceOf(route.connectorKey) ?? route.generation,
          toolCount: route.tools.length,
          tools: route.tools.map(({ record }) => ({
            localName: record.localName,
            upstreamName: record.upstreamName,
          })),
        })),
        fences: fences.entries().filter(({ connectorKey }) => !routes.has(connectorKey)),
      };
    },
  });
}
