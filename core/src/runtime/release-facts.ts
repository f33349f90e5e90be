/**
 * What the runtime needs to know about a connector besides its upstream: the skills of its
 * release (discovered once per release, a release never changes) and whether its
 * credential is there, missing, or unreadable.
 */
import { isTuttiError, type TuttiError } from '../errors/index.js';
import { type DiscoveredSkills, discoverSkills } from '../skills/index.js';
import type { OAuthClients } from '../oauth/types.js';
import type { ConnectorStore, InstalledConnector } from '../store/index.js';
import { signInTarget } from './sign-in-target.js';
import type { RuntimeLogger } from './types.js';

/** Skill discovery per release digest. */
export interface SkillCache {
  /** The skills of `connector`'s release; its problems are logged the first time. */
  of(connector: InstalledConnector): Promise<DiscoveredSkills>;
  /** Drops what is known of release `digest` (its connector was uninstalled). */
  forget(digest: string): void;
}

/** An empty cache logging to `logger`. */
export function createSkillCache(logger: RuntimeLogger): SkillCache {
  const cache = new Map<string, Promise<DiscoveredSkills>>();
  return {
    of(connector) {
      if (!connector.skillsDir) {
        return Promise.resolve({ root: undefined, skills: [], diagnostics: [] });
      }
      let found = cache.get(connector.digest);
      if (!found) {
        found = discoverSkills(connector.releaseDir, connector.manifest.skills).then(
          (result) => {
            for (const problem of result.diagnostics) {
              logger.warn({ connector: connector.key, skill: problem.path }, problem.message);
            }
            return result;
          },
          (error: unknown) => {
            cache.delete(connector.digest);
            throw error;
          },
        );
        cache.set(connector.digest, found);
      }
      return found;
    },
    forget: (digest) => void cache.delete(digest),
  };
}

/**
 * Whether `connector` may start: `ready` (its credential is there, or it needs none, or
 * the grant of a sign-in stands for it), `missing` (none of its auth kind), or the error that says why the one stored cannot be
 * read (TUTTI_ERR_STORE_CREDENTIAL_CORRUPT).
 */
export async function credentialState(
  store: ConnectorStore,
  connector: InstalledConnector,
  oauth?: Pick<OAuthClients, 'hasGrant'>,
): Promise<'ready' | 'missing' | TuttiError> {
  const auth = connector.manifest.auth;
  if (auth.kind === 'none') return 'ready';
  try {
    const stored = await store.credential(connector.key);
    if (stored?.kind === auth.kind) return 'ready';
    // A remote oauth2 server without a token set: the sign-in's grant stands for one.
    const signIn = signInTarget(connector, stored);
    if (signIn && oauth && (await oauth.hasGrant(connector.key))) return 'ready';
    return 'missing';
  } catch (error) {
    if (isTuttiError(error)) return error;
    throw error;
  }
}
