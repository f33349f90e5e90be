/**
 * `tutti connector available` without loading oclif, tried first by the bin. Loading
 * oclif alone takes about four times as long as starting Node (docs/benchmarks.md), and
 * this is the command agents run. It answers only what it can answer exactly as the oclif
 * command would: the argv `connector available` followed by the command's own flags (read
 * from oclif.manifest.json, which a test keeps in step with the command), and only a
 * successful answer, printed the way oclif prints it. Anything else (help, another flag or
 * command, `--json` to a terminal, where oclif may color it, an error to report) returns
 * false before printing a byte, and the bin hands the argv to oclif, which runs the whole
 * command again and reports in its own format.
 */
import { readFileSync } from 'node:fs';
import { format, parseArgs } from 'node:util';
import { resolveHome } from '@tutti/core/client';
import { renderConnectorTable } from './connector-available.js';
import { fetchAvailableConnectors } from './daemon-client.js';

/** The oclif id of the one command this path answers, and the flags it understands. */
const COMMAND_ID = 'connector:available';
const KNOWN_FLAGS = ['home', 'json'];

/** The flags of `connector available` as oclif would parse them. */
export interface AvailableFlags {
  readonly home?: string;
  readonly json: boolean;
}

interface ManifestFlag {
  readonly type?: string;
  readonly char?: string;
  readonly multiple?: boolean;
}

function manifestFlags(): Record<string, ManifestFlag> | undefined {
  try {
    const text = readFileSync(new URL('../oclif.manifest.json', import.meta.url), 'utf8');
    const manifest = JSON.parse(text) as {
      commands?: Record<string, { flags?: Record<string, ManifestFlag>; args?: object }>;
    };
    const command = manifest.commands?.[COMMAND_ID];
    if (!command || Object.keys(command.args ?? {}).length > 0) return undefined;
    return command.flags;
  } catch {
    return undefined;
  }
}

const OPTIONS = {
  home: { type: 'string' },
  json: { type: 'boolean' },
} as const;

function strictParse(argv: readonly string[]) {
  try {
    return parseArgs({ args: [...argv], options: OPTIONS, strict: true, tokens: true });
  } catch {
    return undefined;
  }
}

/**
 * The flags of `argv` (after `connector available`) when oclif would parse them to the
 * same values and they are all this path understands; undefined otherwise.
 */
export function parseAvailableFlags(argv: readonly string[]): AvailableFlags | undefined {
  const flags = manifestFlags();
  // A flag the command gained since this path was written: leave the command to oclif.
  if (!flags || Object.keys(flags).sort().join() !== KNOWN_FLAGS.join()) return undefined;
  if (flags.json?.type !== 'boolean' || flags.home?.type !== 'option') return undefined;
  if (flags.home.char !== undefined || flags.json.char !== undefined || flags.home.multiple) {
    return undefined;
  }
  const parsed = strictParse(argv);
  if (!parsed) return undefined;
  // Positionals, `--`, a repeated or an empty option: oclif's own rules decide those.
  if (parsed.positionals.length > 0) return undefined;
  const names = parsed.tokens.filter((token) => token.kind === 'option').map((t) => t.name);
  if (parsed.tokens.some((token) => token.kind === 'option-terminator')) return undefined;
  if (new Set(names).size !== names.length || parsed.values.home === '') return undefined;
  return { json: parsed.values.json === true, home: parsed.values.home };
}

/**
 * Answers `argv` when it is `connector available` with flags this path takes and the
 * daemon answers; true when it printed the answer, false when the bin must run oclif.
 */
export async function runWithoutOclif(
  argv: readonly string[],
  env: NodeJS.ProcessEnv = process.env,
  stdout: { readonly isTTY?: boolean } = process.stdout,
): Promise<boolean> {
  if (argv[0] !== 'connector' || argv[1] !== 'available') return false;
  // oclif's TUTTI_CONTENT_TYPE=json switches to JSON output; its rules, its path.
  if (env.TUTTI_CONTENT_TYPE !== undefined) return false;
  const flags = parseAvailableFlags(argv.slice(2));
  if (!flags || (flags.json && stdout.isTTY)) return false;
  let available: Awaited<ReturnType<typeof fetchAvailableConnectors>>;
  try {
    available = await fetchAvailableConnectors(resolveHome({ flag: flags.home, env }));
  } catch {
    return false;
  }
  // What oclif's `log` and `logJson` (no theme) print: console.log(format(text)).
  const text = flags.json
    ? JSON.stringify(available, null, 2)
    : renderConnectorTable(available.connectors);
  console.log(format(text));
  return true;
}
