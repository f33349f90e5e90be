/**
 * Preloaded with `node --import` by the CLI tests: appends the URL of every module the
 * process loads (ES modules through a loader hook, CommonJS through `Module._load`) to the
 * file named by $TUTTI_TEST_MODULE_LOG, one per line.
 */
import { appendFileSync } from 'node:fs';
import Module, { register } from 'node:module';

const log = process.env.TUTTI_TEST_MODULE_LOG;
if (log) {
  register(
    `data:text/javascript,${encodeURIComponent(`
      import { appendFileSync } from 'node:fs';
      export async function load(url, context, next) {
        appendFileSync(${JSON.stringify(log)}, url + '\\n');
        return next(url, context);
      }`)}`,
  );
  const load = Module._load;
  Module._load = function record(request, parent, isMain) {
    appendFileSync(log, `require:${request} from ${parent?.filename ?? '?'}\n`);
    return load.call(this, request, parent, isMain);
  };
}
