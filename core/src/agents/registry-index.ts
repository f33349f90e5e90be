/**
 * Looks an agent id up in the registry index the user configured (`tuttid --agent-registry`):
 * a file or URL of `registry.json`, `{agents: [<agent.json>, ...]}`.
 */
import { TuttiError } from '../errors/index.js';
import { readDocument, shownUrl } from './download.js';

/** The raw entry of `id` in the index at `location` (checked later, as any entry). */
export async function entryFromIndex(location: string | undefined, id: string): Promise<unknown> {
  if (location === undefined || location === '') {
    throw new TuttiError('TUTTI_ERR_AGENT_NO_INDEX', { id });
  }
  const shown = /^[a-z][a-z0-9+.-]*:\/\//i.test(location) ? shownUrl(location) : location;
  const bytes = await readDocument(location);
  let index: unknown;
  try {
    index = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw new TuttiError('TUTTI_ERR_AGENT_DOWNLOAD_FAILED', {
      url: shown,
      reason: 'it is not JSON (a registry index is {"agents": [...]})',
    });
  }
  const agents = (index as { agents?: unknown } | null)?.agents;
  if (!Array.isArray(agents)) {
    throw new TuttiError('TUTTI_ERR_AGENT_DOWNLOAD_FAILED', {
      url: shown,
      reason: 'it has no "agents" array (a registry index is {"agents": [...]})',
    });
  }
  const entry = agents.find((agent) => (agent as { id?: unknown } | null)?.id === id);
  if (entry === undefined)
    throw new TuttiError('TUTTI_ERR_AGENT_NOT_IN_INDEX', { id, index: shown });
  return entry;
}
