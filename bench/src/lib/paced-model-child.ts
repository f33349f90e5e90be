/**
 * The test kit's scripted model in its paced mode (`pacedScript`: `<deltas>` text deltas
 * `<gapMs>` apart per turn) as a bench child process, so the process that times the turns
 * is not also the model: `node paced-model-child.js <deltas> <gapMs>` reports `{ url }`
 * over IPC and serves until it is stopped.
 */
import { pacedScript, startScriptedModel } from '@tutti/test-kit/scripted-model';

const [deltas, gapMs] = process.argv.slice(2).map(Number);
const model = await startScriptedModel(pacedScript({ deltas: deltas || 20, gapMs: gapMs || 10 }));
process.send?.({ url: model.url });
process.on('SIGTERM', () => void model.close().then(() => process.exit(0)));
