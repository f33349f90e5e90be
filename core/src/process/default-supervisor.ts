/** The daemon-wide supervisor that stdio upstreams use when given none. */
import { createProcessSupervisor, type ProcessSupervisor } from './supervisor.js';

let shared: ProcessSupervisor | undefined;

/** The one shared supervisor of this process (and so one reaper), created on first use. */
export function defaultProcessSupervisor(): ProcessSupervisor {
  shared ??= createProcessSupervisor();
  return shared;
}
