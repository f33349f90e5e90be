/**
 * What every session of one host shares: the host's options, hooks, preparer, providers,
 * slots and tracer.
 */
import type { Tracer } from '../telemetry/types.js';
import type { SessionHooks } from './hooks.js';
import type { AgentSessionHostOptions } from './host-types.js';
import type { LiveSlots } from './live-slots.js';
import type { DefaultPreparer } from './preparer.js';
import type { ProviderTable } from './provider-table.js';

export interface HostParts {
  readonly options: AgentSessionHostOptions;
  readonly hooks: SessionHooks;
  readonly preparer: DefaultPreparer;
  readonly providers: ProviderTable;
  readonly slots: LiveSlots;
  /** The host's tracer: `options.tracer`, else the pass-through tracer. */
  readonly tracer: Tracer;
}
