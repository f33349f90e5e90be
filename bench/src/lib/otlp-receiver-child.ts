/**
 * The test kit's loopback OTLP/HTTP receiver (`startOtlpReceiver`) as a bench child, so
 * its CPU (parsing every export request) is counted apart from the server's. Reports
 * `{ tracesUrl }` over IPC once it listens; answers `{ type: 'count', seq }` with
 * `{ type: 'reply', seq, spans, requests }`, the totals since it started.
 */
import { startOtlpReceiver } from '@tutti/test-kit/otlp-receiver';

const receiver = await startOtlpReceiver();
let counted = 0;

/**
 * Moves the received spans into the count. The receiver keeps every span it gets (tests
 * read them); a bench sends hundreds of thousands, so they are counted and let go.
 */
function drain(): void {
  const spans = receiver.spans as unknown[];
  counted += spans.length;
  spans.length = 0;
}
setInterval(drain, 1000).unref();

process.on('message', (message: { type?: string; seq?: number }) => {
  if (message?.type !== 'count') return;
  drain();
  process.send?.({ type: 'reply', seq: message.seq, spans: counted, requests: receiver.requests });
});

async function shutdown(): Promise<void> {
  await receiver.close();
  process.exit(0);
}
process.on('SIGTERM', shutdown);
process.on('disconnect', shutdown);
process.send?.({ tracesUrl: receiver.tracesUrl });
