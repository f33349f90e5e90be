/**
 * Starts `otlp-receiver-child.ts` (the test kit's loopback OTLP receiver in its own
 * process group) and reads its span count and CPU, so a bench can set a tracer's
 * endpoint to it and count what the receiver spends apart from the server.
 */
import { fileURLToPath } from 'node:url';
import { cpuMs } from './daemon-process.js';
import { firstMessage, spawnGroup } from './processes.js';

/** A running receiver child. */
export interface OtlpReceiverProcess {
  /** Its OTLP/HTTP traces URL. */
  readonly tracesUrl: string;
  /** CPU milliseconds it used so far (`/proc`). */
  cpuMs(): number;
  /** Spans received since it started. */
  spans(): Promise<number>;
  stop(): Promise<void>;
}

/** Starts the receiver child. */
export async function startOtlpReceiverProcess(): Promise<OtlpReceiverProcess> {
  const script = fileURLToPath(new URL('./otlp-receiver-child.js', import.meta.url));
  const group = spawnGroup(process.execPath, [script], { ipc: true });
  const { tracesUrl } = await firstMessage<{ tracesUrl: string }>(group);
  let seq = 0;
  return {
    tracesUrl,
    cpuMs: () => cpuMs(group.pid),
    spans() {
      seq += 1;
      const mine = seq;
      return new Promise((resolve, reject) => {
        const onExit = () => reject(new Error('the OTLP receiver exited before its count'));
        const onMessage = (message: { type?: string; seq?: number; spans?: number }) => {
          if (message?.type !== 'reply' || message.seq !== mine) return;
          group.child.off('message', onMessage).off('exit', onExit);
          resolve(message.spans ?? 0);
        };
        group.child.on('message', onMessage).once('exit', onExit);
        group.child.send({ type: 'count', seq: mine });
      });
    },
    stop: () => group.stop(),
  };
}
