/** CLI shims: the stable `tutti-connector-<key>` command of each connector with a CLI. */
export * from './publish-shim.js';
export { cmdQuote, shQuote } from './shell-quote.js';
export {
  SHIM_NO_CREDENTIAL_EXIT,
  type ShimCredential,
  type ShimEntrypoint,
} from './shim-script.js';
