/**
 * What `tuttid status` says of the isolation of connector servers (docs/sandbox.md): one
 * line for the daemon's `--sandbox` setting and whether it works here, and for each
 * connector with a stdio server how it runs, what it asked for (home paths, network) and
 * the names of the variables it gets (never their values).
 */

/** The daemon's isolation, as `GET /v1/connectors` answers it (`sandbox`). */
export interface DaemonSandbox {
  readonly mode: 'auto' | 'required' | 'off';
  /** The platform that isolates servers, when one does (`bubblewrap`). */
  readonly platform?: string;
  /** Why servers are not isolated although the mode asks for it. */
  readonly unavailable?: string;
}

/** How one connector's stdio server runs, as `GET /v1/connectors` lists it (`sandbox`). */
export interface ConnectorSandbox {
  readonly isolation: 'isolated' | 'not-isolated' | 'off' | 'refused';
  readonly platform?: string;
  readonly profile: 'declared' | 'default';
  readonly network: 'none' | 'host';
  /** The home paths it asked for (`~/...`). */
  readonly home: { readonly read: readonly string[]; readonly write: readonly string[] };
  /** Names of the variables it gets. */
  readonly env: readonly string[];
  readonly limits: { readonly memoryMiB: number; readonly processes: number };
}

/** The daemon's `sandbox` of a `GET /v1/connectors` answer, when it has a well-formed one. */
export function daemonSandboxOf(body: unknown): DaemonSandbox | undefined {
  const sandbox = (body as { sandbox?: Partial<DaemonSandbox> } | null)?.sandbox;
  return typeof sandbox?.mode === 'string' ? (sandbox as DaemonSandbox) : undefined;
}

/**
 * The daemon's line: its mode, then how servers run under it.
 * @example daemonSandboxLine({ mode: 'auto', platform: 'bubblewrap' })
 * // 'auto: connector servers run isolated by bubblewrap'
 */
export function daemonSandboxLine(sandbox: DaemonSandbox): string {
  const { mode, platform, unavailable } = sandbox;
  if (mode === 'off') return 'off: connector servers run without isolation (tuttid --sandbox off)';
  if (platform) return `${mode}: connector servers run isolated by ${platform}`;
  const why = unavailable ? `: ${unavailable}` : '';
  return mode === 'required'
    ? `required: no connector server starts, they cannot be isolated here${why}`
    : `auto: connector servers run NOT isolated${why}`;
}

/** How a server that is not isolated runs, by its `isolation`. */
const NOT_ISOLATED: Readonly<Record<string, string>> = {
  'not-isolated': 'NOT isolated (no sandbox works here)',
  off: 'not isolated (tuttid --sandbox off)',
  refused: 'not started: it cannot be isolated here (tuttid --sandbox required)',
};

/**
 * A connector's lines: how it runs and under which profile; its home paths, when it asked
 * for any; its variables' names.
 */
export function connectorSandboxLines(sandbox: ConnectorSandbox): string[] {
  const { isolation, profile, network, limits } = sandbox;
  const policy = `${profile} profile`;
  let first: string;
  if (isolation === 'isolated') {
    const by = sandbox.platform ? ` by ${sandbox.platform}` : '';
    first = `isolated${by}, ${policy}: network ${network}, limits ${limits.memoryMiB} MiB, ${limits.processes} processes`;
  } else {
    const how = NOT_ISOLATED[isolation] ?? isolation;
    first = `${how}; its ${policy} asks for network ${network}`;
  }
  const lines = [first];
  const { read, write } = sandbox.home;
  const home = [
    read.length ? `reads ${read.join(', ')}` : '',
    write.length ? `writes ${write.join(', ')}` : '',
  ].filter(Boolean);
  if (home.length) lines.push(`home: ${home.join('; ')}`);
  if (sandbox.env.length) lines.push(`env: ${sandbox.env.join(', ')}`);
  return lines;
}
