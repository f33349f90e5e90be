/**
 * The daemon's graceful exit paths for supervised process groups: SIGTERM and SIGINT
 * stop every group and then exit; an uncaught error or `process.exit()` signals every
 * group synchronously (the reaper sends SIGKILL to whatever outlives its grace period).
 * SIGKILL of the daemon is the reaper's job alone.
 */
import { constants } from 'node:os';
import type { ProcessSupervisor } from './supervisor.js';

/** Options of {@link installExitHandlers}. */
export interface ExitHandlerOptions {
  /** Signals that stop the groups and then exit (default SIGTERM, SIGINT). */
  signals?: readonly NodeJS.Signals[];
  /** Exit after a signal once the groups are gone (default true, code 128 + signal number). */
  exitOnSignal?: boolean;
  /** Called after a signal's cleanup, before exiting (e.g. to close servers). */
  onSignal?: (signal: NodeJS.Signals) => void | Promise<void>;
}

/**
 * Installs the handlers; returns a function that removes them again.
 * @example const uninstall = installExitHandlers(supervisor);
 */
export function installExitHandlers(
  supervisor: ProcessSupervisor,
  options: ExitHandlerOptions = {},
): () => void {
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  const exitOnSignal = options.exitOnSignal ?? true;
  let stopping = false;

  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    void (async () => {
      try {
        await supervisor.close();
        await options.onSignal?.(signal);
      } finally {
        if (exitOnSignal) process.exit(128 + (constants.signals[signal] ?? 0));
      }
    })();
  };
  const onFatal = () => supervisor.signalAllSync('SIGTERM');
  const onExit = () => supervisor.signalAllSync('SIGTERM');

  for (const signal of signals) process.on(signal, onSignal);
  // The monitor event observes a fatal error without replacing Node's own crash handling.
  process.on('uncaughtExceptionMonitor', onFatal);
  process.on('exit', onExit);

  return () => {
    for (const signal of signals) process.off(signal, onSignal);
    process.off('uncaughtExceptionMonitor', onFatal);
    process.off('exit', onExit);
  };
}
