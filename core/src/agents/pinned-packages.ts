/**
 * Exact package pins: an npm `name@1.2.3` (or `@scope/name@1.2.3`) and a Python
 * `name==1.2.3` (or `name@1.2.3`). A range, a tag, a URL, a git or file spec is not a pin:
 * TUTTI_ERR_AGENT_UNPINNED, with the pin to write.
 */
import { TuttiError } from '../errors/index.js';

/** A package and its exact version. */
export interface PinnedPackage {
  readonly name: string;
  readonly version: string;
}

const NPM_NAME = '(?:@[a-z0-9][a-z0-9._~-]*/)?[a-z0-9][a-z0-9._~-]*';
const SEMVER =
  '(?:0|[1-9]\\d*)\\.(?:0|[1-9]\\d*)\\.(?:0|[1-9]\\d*)(?:-[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*)?(?:\\+[0-9A-Za-z-]+(?:\\.[0-9A-Za-z-]+)*)?';
const NPM_PIN = new RegExp(`^(${NPM_NAME})@(${SEMVER})$`);

const PY_NAME = '[A-Za-z0-9](?:[A-Za-z0-9._-]*[A-Za-z0-9])?(?:\\[[A-Za-z0-9._,-]+\\])?';
const PEP440_EXACT = '[0-9]+(?:\\.[0-9]+)*(?:(?:a|b|rc)[0-9]+)?(?:\\.post[0-9]+)?(?:\\.dev[0-9]+)?';
const PY_PIN = new RegExp(`^(${PY_NAME})(?:==|@)(${PEP440_EXACT})$`);

function unpinned(id: string, spec: string, name: string, example: string): TuttiError {
  return new TuttiError('TUTTI_ERR_AGENT_UNPINNED', {
    id,
    package: spec.slice(0, 200),
    example: `${name}${example}`,
  });
}

/** The npm package name of a spec, without any version part. */
function npmNameOf(spec: string): string {
  const at = spec.indexOf('@', spec.startsWith('@') ? 1 : 0);
  return at === -1 ? spec : spec.slice(0, at);
}

/**
 * Reads an exact npm pin; `version` is the entry's, for the example of the refusal.
 * @example pinnedNpmPackage('my-agent', '@zed-industries/codex-acp@0.9.2', '0.9.2')
 */
export function pinnedNpmPackage(id: string, spec: string, version: string): PinnedPackage {
  const match = NPM_PIN.exec(spec);
  if (!match) throw unpinned(id, spec, npmNameOf(spec) || 'package', `@${version}`);
  return { name: match[1]!, version: match[2]! };
}

/** Reads an exact Python pin (`name==1.2.3` or `name@1.2.3`). */
export function pinnedPythonPackage(id: string, spec: string, version: string): PinnedPackage {
  const match = PY_PIN.exec(spec);
  if (!match) {
    const name = /^[A-Za-z0-9._-]+/.exec(spec)?.[0] ?? 'package';
    throw unpinned(id, spec, name, `==${version}`);
  }
  return { name: match[1]!, version: match[2]! };
}
