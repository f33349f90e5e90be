/**
 * `skills.yamlList`: a bound session's connector skill roots added to a YAML string list of
 * a config file in the session home (`skills.external_dirs` of `config.yaml`), for an agent
 * that finds skills in the folders such a list names. The file is the home's (a `home.copy`
 * or `seed` of it, or a new one); one linked from the user's folder is replaced by a merged
 * copy, so the user's own file is never written. Comments and the user's entries are kept,
 * a root already listed is not added again, and missing maps along the path are created.
 * A file that is not YAML, or a value at the path that is not a list of strings, is left as
 * it is, with a warning: the agent then finds no connector skills through it.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { SessionFiles } from '@tutti/core';
import { type Document, isMap, isScalar, isSeq, parseDocument, type YAMLMap } from 'yaml';
import type { AcpEngineLogger } from './acp-session.js';
import type { YamlSkillList } from './descriptors.js';
import { ownFolders } from './home-folders.js';

/** A node that stands for nothing (`key:` with no value). */
const isNothing = (node: unknown) => node == null || (isScalar(node) && node.value == null);

/** The map at `path` of `doc`, made where missing; undefined when a value of another kind is there. */
function mapAt(doc: Document, path: readonly string[]): YAMLMap | undefined {
  if (isNothing(doc.contents)) doc.contents = doc.createNode({});
  let map: unknown = doc.contents;
  for (const key of path) {
    if (!isMap(map)) return undefined;
    let next: unknown = map.get(key, true);
    if (isNothing(next)) {
      next = doc.createNode({});
      map.set(key, next);
    }
    map = next;
  }
  return isMap(map) ? map : undefined;
}

/**
 * `roots` added to the string list at the dotted `key` of the YAML `text`: the new text, the
 * same text when every root is listed already, or why it cannot be merged.
 * @example mergeYamlList('skills:\n  external_dirs: [~/mine]\n', 'skills.external_dirs', ['/s'])
 */
export function mergeYamlList(
  text: string,
  key: string,
  roots: readonly string[],
): { text: string } | { problem: string } {
  const doc = parseDocument(text);
  if (doc.errors.length > 0) return { problem: `it is not valid YAML (${doc.errors[0]!.message})` };
  const path = key.split('.');
  const map = mapAt(doc, path.slice(0, -1));
  if (!map) return { problem: `a value on the way to ${key} is not a map` };
  const last = path.at(-1)!;
  const list = map.get(last, true);
  if (isNothing(list)) {
    map.set(last, doc.createNode([...new Set(roots)]));
    return { text: doc.toString() };
  }
  if (
    !isSeq(list) ||
    !list.items.every((item) => isScalar(item) && typeof item.value === 'string')
  ) {
    return { problem: `${key} is not a list of strings` };
  }
  const listed = new Set(list.items.map((item) => (item as { value: string }).value));
  const added = [...new Set(roots)].filter((root) => !listed.has(root));
  if (added.length === 0) return { text };
  for (const root of added) list.add(doc.createNode(root));
  return { text: doc.toString() };
}

/**
 * Adds `roots` to the list `yamlList` names in the home at `here` (relative to the session
 * folder), writing the home's file (0600) only when it changes.
 */
export async function mergeSkillRoots(
  files: SessionFiles,
  here: string,
  yamlList: YamlSkillList,
  roots: readonly string[],
  logger?: AcpEngineLogger,
): Promise<void> {
  const warn = (problem: string) =>
    logger?.warn(
      { file: yamlList.file, key: yamlList.key },
      `skills.yamlList: the connector skill roots were not added to ${yamlList.key} of ${yamlList.file} in the session home: ${problem}; the agent finds no connector skills through it (fix the file, or the descriptor's key)`,
    );
  const home = join(files.dir, here);
  if (!(await ownFolders(home, yamlList.file))) {
    warn('a file of the session home stands where its folder would be');
    return;
  }
  let text: string;
  try {
    text = await readFile(join(home, yamlList.file), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') {
      warn(`it cannot be read (${(error as Error).message})`);
      return;
    }
    text = '';
  }
  const merged = mergeYamlList(text, yamlList.key, roots);
  if ('problem' in merged) {
    warn(merged.problem);
    return;
  }
  // A rename over the path: a link to the user's file is replaced, never written through.
  if (merged.text !== text) await files.write(join(here, yamlList.file), merged.text);
}
