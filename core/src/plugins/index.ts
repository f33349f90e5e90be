/** Plugin contract, discovery and loading. */
export * from './discover-plugins.js';
export * from './load-plugins.js';
export * from './plugin-contract.js';
export { DEFAULT_ENTRY_MODE, type EntryMode, resolvePluginEntry } from './plugin-entry.js';
