/**
 * The paced model (`paced-model.ts`) as a bench child process, so the process that times
 * the turns is not also the model: `node paced-model-child.js <deltas> <gapMs>` reports
 * `{ url }` over IPC and serves until it is stopped.
 */
import { startPacedModel } from './paced-model.js';

const [deltas, gapMs] = process.argv.slice(2).map(Number);
const model = await startPacedModel({ deltas: deltas || 20, gapMs: gapMs || 10 });
process.send?.({ url: model.url });
process.on('SIGTERM', () => void model.close().then(() => process.exit(0)));
