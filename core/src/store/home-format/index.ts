/** The layout version of a tutti home (`format.json`) and the migrations between versions. */
export {
  HOME_FORMAT_FILE,
  homeFormatPath,
  readHomeFormat,
  UNVERSIONED_HOME,
  writeHomeFormat,
} from './format-file.js';
export { type HomeMigrated, type MigrateHomeOptions, migrateHome } from './migrate-home.js';
export {
  HOME_FORMAT_VERSION,
  HOME_MIGRATIONS,
  type HomeMigration,
  latestHomeFormat,
} from './migrations.js';
