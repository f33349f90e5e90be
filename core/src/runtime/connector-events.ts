/**
 * The connector runtime's observations as events for hosts. A failure carries a status and
 * a fixed advice text, never the upstream's own output (it may hold secrets).
 */
import { INTERFACE_ADVICE } from '../catalog/index.js';
import type { TuttiEventBody } from '../events/index.js';
import type { RuntimeEvent } from './types.js';

/** Fixed advice per failure status. */
export const FAILURE_ADVICE = Object.freeze({
  crashed:
    "The connector's MCP server ended; the daemon restarts it. tuttid status and the dashboard say why and when.",
  'start-failed':
    "The connector's MCP server did not start. Check its command, URL and credential; tuttid status and the dashboard say why.",
} as const);

/** The event to publish for a runtime observation, when hosts care about it. */
export function connectorEventOf(event: RuntimeEvent): TuttiEventBody | undefined {
  const generation = event.generation === undefined ? {} : { generation: event.generation };
  switch (event.kind) {
    case 'started':
    case 'upgraded':
      return { type: 'connector.started', key: event.key, ...generation };
    case 'restarted':
      return { type: 'connector.restarted', key: event.key, ...generation };
    case 'removed':
      return { type: 'connector.removed', key: event.key };
    case 'crashed':
    case 'start-failed':
      return {
        type: 'connector.failed',
        key: event.key,
        status: event.kind,
        advice: FAILURE_ADVICE[event.kind],
      };
    case 'needs-sign-in':
      return {
        type: 'connector.needs-auth',
        key: event.key,
        advice: INTERFACE_ADVICE['needs-auth'],
      };
    case 'signed-in':
      return { type: 'connector.signed-in', key: event.key };
    default:
      return undefined;
  }
}
