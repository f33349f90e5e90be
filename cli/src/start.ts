/**
 * `npm start`: runs the daemon on the default home. Until the daemon lands this prints
 * what the runtime has so far.
 */
import { ERROR_CODES } from '@tutti/core';

console.log('tutti-connector: the daemon is not built yet.');
console.log(`core ships ${Object.keys(ERROR_CODES).length} error codes; see docs/ for the design.`);
