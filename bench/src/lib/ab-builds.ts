/**
 * The builds an A/B bench compares: this one, and with `BENCH_AB_CORE_DIST=<other core/dist>`
 * another build of the same repository layout (e.g. an older commit built in a scratch
 * tree), whose daemon is `<core/dist>/../../cli/bin/tuttid.js`.
 */
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { TUTTID } from './daemon-process.js';

/** One build: its name in the report, its `core/dist` and its `tuttid` bin. */
export interface Build {
  readonly name: string;
  /** Undefined for this build (the bench's own `@tutti/core/internal`). */
  readonly coreDist: string | undefined;
  readonly tuttid: string;
}

/** This build, then the one `BENCH_AB_CORE_DIST` names, if set; throws if its daemon is missing. */
export function abBuilds(): Build[] {
  const builds: Build[] = [{ name: 'this build', coreDist: undefined, tuttid: TUTTID }];
  const other = process.env.BENCH_AB_CORE_DIST;
  if (other) {
    const coreDist = resolve(other);
    const tuttid = resolve(coreDist, '../../cli/bin/tuttid.js');
    if (!existsSync(tuttid)) {
      throw new Error(`BENCH_AB_CORE_DIST: no ${tuttid} beside it (build that tree first)`);
    }
    builds.push({ name: `other build (${other})`, coreDist, tuttid });
  }
  return builds;
}
