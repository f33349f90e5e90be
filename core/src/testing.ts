/**
 * `@tutti/core/testing`: helpers for the tests of other packages (temp homes, connector
 * releases that run the repository's fixtures, copies of the home fixtures of earlier
 * releases, a fake connector subsystem). Source only: it is not built, and it resolves
 * only under the `tutti-source` condition the tests use.
 */
export {
  groupGone,
  type ReleaseSpec,
  SILENT_SERVER,
  writeRelease,
} from './runtime/test-support.js';
export { createFakeConnector } from './session/test-support/fake-connector.js';
export {
  copyHomeFixture,
  homeSnapshot,
  type ServedByHome,
  servedByHomeFixture,
} from './store/home-format/test-support.js';
export { cleanUp, tempDir } from './store/store-test-support.js';
