/**
 * The daemon's graceful exit paths for supervised process groups: SIGTERM and SIGINT
 * run the owner's graceful stop (bounded), stop every group still running, then exit; an uncaught error or `process.exit()` signals every
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
  /**
   * The graceful stop after a signal (e.g. closing the daemon, which stops its upstreams
   * itself, so none of them looks crashed); the groups still running after it, or after
   * `graceMs`, are stopped then.
   */
  onSignal?: (signal: NodeJS.Signals) => void | Promise<void>;
  /** Longest wait for `onSignal` before the groups are stopped anyway (default 10 s). */
  graceMs?: number;
  /**
   * Decides about an error nothing handled (uncaught, or a rejection nobody awaited): true
   * when it was absorbed and the process goes on. Otherwise it is printed, every group is
   * signalled and the process exits 1. Without it, Node's own crash handling stays.
   */
  absorb?: (error: unknown) => boolean;
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
        let timer: NodeJS.Timeout | undefined;
        const grace = new Promise<void>((resolve) => {
          timer = setTimeout(resolve, options.graceMs ?? 10_000);
        });
        await Promise.race([Promise.resolve(options.onSignal?.(signal)).catch(() => {}), grace]);
        clearTimeout(timer);
        await supervisor.close();
      } finally {
        if (exitOnSignal) process.exit(128 + (constants.signals[signal] ?? 0));
      }
    })();
  };
  const onFatal = () => supervisor.signalAllSync('SIGTERM');
  const onExit = () => supervisor.signalAllSync('SIGTERM');
  const absorb = options.absorb;
  const onEscaped = (error: unknown) => {
    if (absorb?.(error)) return;
    process.stderr.write(
      `${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    supervisor.signalAllSync('SIGTERM');
    process.exit(1);
  };

  for (const signal of signals) process.on(signal, onSignal);
  if (absorb) {
    process.on('uncaughtException', onEscaped);
    process.on('unhandledRejection', onEscaped);
  } else {
    // The monitor event observes a fatal error without replacing Node's own crash handling.
    process.on('uncaughtExceptionMonitor', onFatal);
  }
  process.on('exit', onExit);

  return () => {
    for (const signal of signals) process.off(signal, onSignal);
    process.off('uncaughtExceptionMonitor', onFatal);
    process.off('uncaughtException', onEscaped);
    process.off('unhandledRejection', onEscaped);
    process.off('exit', onExit);
  };
}
