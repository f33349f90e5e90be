/**
 * Reads the small YAML subset SKILL.md frontmatter uses: top-level `key: value` pairs with
 * plain, single-quoted or double-quoted scalars and `|` / `>` block scalars. Nested maps and
 * lists (e.g. `metadata:`) are skipped. No YAML parser is installed, and this subset is all
 * a skill summary needs.
 */

/** A parsed SKILL.md: its frontmatter fields and the Markdown body after them. */
export interface ParsedSkillFile {
  /** Top-level scalar fields; undefined when the file has no frontmatter block. */
  fields: Record<string, string> | undefined;
  body: string;
}

const KEY_LINE = /^([A-Za-z0-9_-]+):(?:[ \t]+(.*))?$/;

const SINGLE_QUOTED = /^'((?:[^']|'')*)'\s*(?:#.*)?$/s;
const DOUBLE_QUOTED = /^"((?:[^"\\]|\\.)*)"\s*(?:#.*)?$/s;

function unquote(raw: string): string {
  const value = raw.trim();
  const single = SINGLE_QUOTED.exec(value);
  if (single) return single[1]!.replace(/''/g, "'");
  const double = DOUBLE_QUOTED.exec(value);
  if (double) {
    try {
      return JSON.parse(`"${double[1]}"`) as string;
    } catch {
      return double[1]!;
    }
  }
  return value.replace(/\s+#.*$/, '');
}

function blockScalar(style: string, lines: string[]): string {
  const indents = lines.filter((line) => line.trim() !== '').map((l) => /^ */.exec(l)![0].length);
  const indent = indents.length > 0 ? Math.min(...indents) : 0;
  const text = lines.map((line) => line.slice(indent));
  while (text.length > 0 && text[text.length - 1]!.trim() === '') text.pop();
  if (style.startsWith('|')) return text.join('\n');
  return text
    .join('\n')
    .split(/\n{2,}/)
    .map((paragraph) => paragraph.replace(/\n/g, ' '))
    .join('\n');
}

function parseFields(lines: string[]): Record<string, string> {
  const fields: Record<string, string> = {};
  let index = 0;
  while (index < lines.length) {
    const match = KEY_LINE.exec(lines[index]!);
    index += 1;
    if (!match) continue;
    const [, key, rawValue = ''] = match;
    const continuation: string[] = [];
    while (index < lines.length && (/^[ \t]/.test(lines[index]!) || lines[index]!.trim() === '')) {
      continuation.push(lines[index]!);
      index += 1;
    }
    const value = rawValue.trim();
    if (/^[|>][+-]?$/.test(value)) {
      fields[key!] = blockScalar(value, continuation);
    } else if (value !== '') {
      const folded = [value, ...continuation.map((line) => line.trim())].filter(Boolean);
      fields[key!] = unquote(folded.join(' '));
    }
  }
  return fields;
}

/** Splits a SKILL.md into frontmatter fields and body. */
export function parseSkillFile(text: string): ParsedSkillFile {
  const normalized = text.replace(/^\uFEFF/, '').replace(/\r\n?/g, '\n');
  const lines = normalized.split('\n');
  if (lines[0]?.trim() !== '---') return { fields: undefined, body: normalized };
  const end = lines.indexOf('---', 1);
  if (end === -1) return { fields: undefined, body: normalized };
  return { fields: parseFields(lines.slice(1, end)), body: lines.slice(end + 1).join('\n') };
}

/** The text of the first `# ` heading of a Markdown body, outside code fences. */
export function firstHeading(body: string): string | undefined {
  let fenced = false;
  for (const line of body.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const match = /^#[ \t]+(.+?)[ \t]*#*[ \t]*$/.exec(line);
    if (match) return match[1];
  }
  return undefined;
}
