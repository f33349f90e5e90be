/** Agent-facing guidance text about the connectors of a session. */
export { renderGuidance } from './render-guidance.js';
export { sanitizeText } from './sanitize-text.js';
