/**
 * Reads the body of `POST /v1/agents/install` into what to install: a registry entry (sent,
 * or looked up by id in the registry index) or a signed extension source. A body that is
 * neither is TUTTI_ERR_AGENT_BAD_REQUEST naming the field.
 */
import { TuttiError } from '../errors/index.js';
import { type ExtensionSource, parseExtensionSource } from './extension-source.js';
import { AGENT_ID, parseRegistryEntry, type RegistryEntry } from './registry-entry.js';
import { entryFromIndex } from './registry-index.js';

/** What one install request asks for. */
export type InstallPlan = (
  | { readonly kind: 'entry'; readonly entry: RegistryEntry }
  | { readonly kind: 'extension'; readonly source: ExtensionSource }
) & { readonly allowInstallScripts: boolean };

const FORMS = 'send {"entry": <agent.json>}, {"id": "<registry id>"} or {"extension": <source>}';

function badRequest(field: string, problem: string): TuttiError {
  return new TuttiError('TUTTI_ERR_AGENT_BAD_REQUEST', { field, problem });
}

/** Checks a request and resolves an id through the index; nothing is written. */
export async function planInstall(request: unknown, registryIndex?: string): Promise<InstallPlan> {
  if (request === null || typeof request !== 'object' || Array.isArray(request)) {
    throw badRequest('(body)', `is not a JSON object: ${FORMS}`);
  }
  const body = request as Record<string, unknown>;
  const unknown = Object.keys(body).find(
    (key) => !['entry', 'id', 'extension', 'allowInstallScripts'].includes(key),
  );
  if (unknown !== undefined) {
    throw badRequest(unknown.slice(0, 100), `is not a field of an install request: ${FORMS}`);
  }
  const forms = ['entry', 'id', 'extension'].filter((key) => body[key] !== undefined);
  if (forms.length !== 1) {
    throw badRequest(
      forms.length === 0 ? '(body)' : forms.join(', '),
      `${forms.length === 0 ? 'names nothing to install' : 'names more than one thing to install'}: ${FORMS}`,
    );
  }
  const allow = body.allowInstallScripts;
  if (allow !== undefined && typeof allow !== 'boolean') {
    throw badRequest(
      'allowInstallScripts',
      'is not a boolean: send true or false, or leave it out',
    );
  }
  const allowInstallScripts = allow === true;
  if (body.extension !== undefined) {
    return { kind: 'extension', source: parseExtensionSource(body.extension), allowInstallScripts };
  }
  if (body.id !== undefined) {
    if (typeof body.id !== 'string' || !AGENT_ID.test(body.id)) {
      throw badRequest('id', 'is not a registry id: use lowercase letters, digits and "-"');
    }
    const raw = await entryFromIndex(registryIndex, body.id);
    return { kind: 'entry', entry: parseRegistryEntry(raw), allowInstallScripts };
  }
  return { kind: 'entry', entry: parseRegistryEntry(body.entry), allowInstallScripts };
}
