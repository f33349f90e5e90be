/** Skill discovery: the Connector-owned skills of a release and their skill root. */
export * from './discover-skills.js';
export * from './skill-limits.js';
export * from './skill-plugin-folder.js';
