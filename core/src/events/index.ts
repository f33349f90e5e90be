/** The daemon's event stream for hosts. */
export {
  createEventHub,
  type EventHub,
  type EventHubOptions,
  type EventSink,
  type RefreshAction,
  type TuttiEvent,
  type TuttiEventBody,
} from './event-hub.js';
