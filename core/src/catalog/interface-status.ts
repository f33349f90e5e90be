/**
 * The run conditions of a connector interface and the one fixed advice text of each
 * (spec 9.2 `status`: what the interface can do now, never the user's enable/disable
 * choice, which does not exist). The advice is a constant of this table and never
 * upstream output, so `connector available` stays free of secrets whatever an upstream
 * printed; the reason behind a condition is in the control API's `GET /v1/connectors`,
 * which a person reads with `tuttid status` or in the dashboard. Agents never see these
 * texts in their guidance, which names only ready interfaces.
 * Zod-free: the CLI's check of an answer uses it too.
 */

/** Every run condition of an interface, in the order of the table below. */
export const INTERFACE_STATUSES = [
  'ready',
  'starting',
  'restarting',
  'needs-auth',
  'credential-rejected',
  'failed',
] as const;

/** Run condition of one interface. */
export type InterfaceStatus = (typeof INTERFACE_STATUSES)[number];

/** The conditions a CLI interface can be in (its shim needs no running server). */
export const CLI_STATUSES = ['ready', 'starting', 'needs-auth', 'failed'] as const;

/** Run condition of a CLI interface. */
export type CliStatus = (typeof CLI_STATUSES)[number];

/** The fixed advice of every condition but `ready`. */
export const INTERFACE_ADVICE: Readonly<Record<Exclude<InterfaceStatus, 'ready'>, string>> =
  Object.freeze({
    starting:
      'Starting: usable once it is ready; this list and the connector server tools update then.',
    restarting: 'It stopped and the daemon is restarting it: usable again once it is ready.',
    'needs-auth':
      'It needs a credential or a sign-in: in the dashboard (`tuttid dashboard` prints a login link) use its Sign in button, or set its credential; on the tutti daemon control API, POST /v1/connectors/{key}/authorize signs in to a remote server and PUT /v1/connectors/{key}/credentials sets a credential.',
    'credential-rejected':
      'Its server refused the credential: set a new one with PUT /v1/connectors/{key}/credentials on the tutti daemon control API, or in the dashboard (`tuttid dashboard` prints a login link).',
    failed:
      'It is not working: `tuttid status` says why (its last error and its last stderr lines), and so does the dashboard (`tuttid dashboard` prints a login link).',
  });

/** The advice of `status`, or undefined for `ready`. */
export function adviceOf(status: InterfaceStatus): string | undefined {
  return status === 'ready' ? undefined : INTERFACE_ADVICE[status];
}

/** The fixed reasons of a pending release in `connector available` (never an upstream's words). */
export const PENDING_REASONS = Object.freeze({
  starting: 'it is starting',
  failed: 'it did not start; tuttid status or the dashboard say why',
} as const);
