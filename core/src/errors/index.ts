export * from './codes.js';
export * from './tutti-error.js';
