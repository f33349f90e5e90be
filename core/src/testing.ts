/**
 * `@tutti/core/testing`: test doubles of core's own ports, for the tests of other packages
 * (a fake connector subsystem for a session host). Everything else a test needs (temp
 * homes, connector releases, fixtures, a real daemon, the scripted model) is in the test
 * kit, `@tutti/test-kit`. Source only: it is not built, and it resolves only under the
 * `tutti-source` condition the tests use.
 */
export { createFakeConnector } from './session/test-support/fake-connector.js';
