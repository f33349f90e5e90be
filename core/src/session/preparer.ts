/**
 * DefaultPreparer: builds the ONE authoritative PreparedRuntime of an agent session (cwd,
 * env with the shim bin dir first on PATH, the `connector` binding, skill roots, guidance),
 * runs the `prepare` waterfall and re-checks the binding after every tap and at the end.
 */
import { delimiter } from 'node:path';
import {
  CONNECTOR_SERVER_NAME,
  type MCPServerBinding,
  type PreparedRuntime,
  preparedRuntimeSchema,
} from '../contracts/index.js';
import { TuttiError } from '../errors/index.js';
import { deepFreeze } from '../util/objects.js';
import { assertBindings, type PrepareContext, type SessionHooks } from './hooks.js';
import type { RuntimePreview } from './provider-contract.js';
import type {
  AgentProbe,
  ConnectorRuntimePort,
  SessionContext,
  SessionTokenService,
} from './session-types.js';

/** Builds the guidance text from the session's connector context. */
export type GuidanceFunction = (input: {
  readonly session: SessionContext;
  readonly skillRoots: readonly string[];
}) => string | undefined;

/** What one preparation needs. */
export interface PrepareRequest {
  readonly session: SessionContext;
  readonly cwd: string;
  /** Base environment of the agent (the daemon's own env is never copied implicitly). */
  readonly env?: Readonly<Record<string, string>>;
  /** What the agent declared; `undefined` (probe failed) or `httpMcp: false` -> plain. */
  readonly probe: AgentProbe | undefined;
}

/** Why a runtime is plain, when it is. */
export type PlainReason = 'no-http-mcp' | 'probe-failed' | 'connector-unavailable';

/** Options of {@link DefaultPreparer}. */
export interface DefaultPreparerOptions {
  readonly hooks: SessionHooks;
  readonly connector: ConnectorRuntimePort;
  readonly tokens: SessionTokenService;
  readonly guidance?: GuidanceFunction;
  /** Told when a runtime degrades to plain (the reason, never a secret). */
  readonly onPlain?: (session: SessionContext, reason: PlainReason, cause?: unknown) => void;
  /**
   * The PATH of a runtime whose request has none (a host's prepare form): the daemon's own,
   * cleaned of its install and npm's additions. The shim folder goes first either way.
   */
  readonly defaultPath?: string;
}

/** Prepares agent sessions; the only place a `connector` binding is built. */
export class DefaultPreparer {
  readonly #options: DefaultPreparerOptions;

  constructor(options: DefaultPreparerOptions) {
    this.#options = options;
  }

  /**
   * The session's runtime after every `prepare` tap, deep-frozen. A prepare that fails
   * revokes the token it issued: nobody was handed it.
   */
  async prepare(request: PrepareRequest): Promise<PreparedRuntime> {
    const base = await this.#base(request);
    try {
      return await this.#tapped(request, base);
    } catch (error) {
      if (base.mcpServers.length > 0) await this.#revoke(request.session);
      throw error;
    }
  }

  async #tapped(request: PrepareRequest, base: PreparedRuntime): Promise<PreparedRuntime> {
    const context: PrepareContext = Object.freeze({
      session: request.session,
      bindings: base.mcpServers,
    });
    const result = await this.#options.hooks.prepare.promise(base, context);
    assertBindings(result, context, 'prepare');
    const parsed = preparedRuntimeSchema.safeParse(result);
    if (!parsed.success) {
      throw new TuttiError('TUTTI_ERR_SESSION_INVALID_RUNTIME', {
        session: request.session.agentSessionId,
        reason: parsed.error.issues
          .map((issue) => `${issue.path.join('.')}: ${issue.message}`)
          .join('; '),
      });
    }
    return deepFreeze(parsed.data);
  }

  /**
   * What a bound runtime of `session` would carry now (skill roots, guidance), without a
   * token and without the `prepare` taps; undefined when it could not be bound.
   */
  async preview(session: SessionContext): Promise<RuntimePreview | undefined> {
    if (!session.capabilities.httpMcp) return undefined;
    try {
      const url = await this.#options.connector.endpointUrl();
      const skillRoots = [...(await this.#options.connector.skillRoots())];
      const guidance = this.#options.guidance?.({ session, skillRoots });
      return deepFreeze({ url, skillRoots, ...(guidance === undefined ? {} : { guidance }) });
    } catch {
      return undefined;
    }
  }

  /** `env` with the shim bin dir first on PATH; `env` unchanged when the port cannot say. */
  async launchEnv(env: Readonly<Record<string, string>>): Promise<Record<string, string>> {
    try {
      return { ...env, PATH: prependPath(await this.#options.connector.shimBinDir(), env.PATH) };
    } catch {
      return { ...env };
    }
  }

  async #base(request: PrepareRequest): Promise<PreparedRuntime> {
    const env = { ...request.env };
    if (env.PATH === undefined && this.#options.defaultPath !== undefined) {
      env.PATH = this.#options.defaultPath;
    }
    const plain = (reason: PlainReason, cause?: unknown): PreparedRuntime => {
      this.#options.onPlain?.(request.session, reason, cause);
      return deepFreeze({ cwd: request.cwd, env, mcpServers: [], skillRoots: [] });
    };
    if (request.probe === undefined) return plain('probe-failed');
    if (!request.probe.httpMcp || !request.session.capabilities.httpMcp) {
      return plain('no-http-mcp');
    }
    const { connector, tokens } = this.#options;
    const { agentSessionId, workspaceId } = request.session;
    let issued = false;
    try {
      const url = await connector.endpointUrl();
      const binDir = await connector.shimBinDir();
      const skillRoots = [...(await connector.skillRoots())];
      const token = await tokens.issue(workspaceId, agentSessionId);
      issued = true;
      const binding: MCPServerBinding = {
        name: CONNECTOR_SERVER_NAME,
        type: 'http',
        url,
        headers: { Authorization: `Bearer ${token}` },
      };
      const guidance = this.#options.guidance?.({ session: request.session, skillRoots });
      return deepFreeze({
        cwd: request.cwd,
        env: { ...env, PATH: prependPath(binDir, env.PATH) },
        mcpServers: [binding],
        skillRoots,
        ...(guidance === undefined ? {} : { guidance }),
      });
    } catch (error) {
      if (issued)
        await Promise.resolve(tokens.revokeSession(workspaceId, agentSessionId)).catch(() => {});
      return plain('connector-unavailable', error);
    }
  }

  async #revoke({ workspaceId, agentSessionId }: SessionContext): Promise<void> {
    try {
      await this.#options.tokens.revokeSession(workspaceId, agentSessionId);
    } catch {
      // A token service that cannot revoke has nothing left to revoke for this session.
    }
  }
}

/** `dir` first on a PATH value, without duplicates of it. */
export function prependPath(dir: string, path: string | undefined): string {
  const rest = (path ?? '').split(delimiter).filter((entry) => entry !== '' && entry !== dir);
  return [dir, ...rest].join(delimiter);
}
