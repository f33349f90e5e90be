/**
 * Makes connector-supplied text safe to put into agent guidance: one line, bounded, and
 * with URLs, absolute paths and secret-looking tokens replaced, since connector metadata
 * comes from third parties and guidance must never carry URLs, paths or secrets.
 */

import { cutText } from '../util/cut-text.js';

const URL_LIKE = /\b[a-z][a-z0-9+.-]*:\/\/\S*/gi;
const WINDOWS_PATH = /\b[A-Za-z]:\\\S*/g;
const POSIX_PATH = /(^|[\s("'`])~?\/[^\s/]+(?:\/\S*)+/g;
const SECRET_LIKE =
  /\b(?:bearer\s+\S+|[A-Za-z0-9_-]*(?:token|secret|password|api[_-]?key)[A-Za-z0-9_-]*\s*[:=]\s*\S+)/gi;
const LONG_OPAQUE = /\b[A-Za-z0-9+/_-]{32,}={0,2}/g;

/** One-line, length-capped text with URLs, paths and secret-like values removed. */
export function sanitizeText(text: string, maxLength = 300): string {
  const clean = text
    // First, so nothing hides a link or a secret from the patterns: zero-width characters
    // go, controls and direction marks (which can reorder what a reader sees) become spaces.
    .replace(/[\u200b-\u200d\u2060\ufeff]/g, '')
    .replace(/[\p{Cc}\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]+/gu, ' ')
    .replace(URL_LIKE, '[link removed]')
    .replace(WINDOWS_PATH, '[path removed]')
    .replace(POSIX_PATH, '$1[path removed]')
    .replace(SECRET_LIKE, '[secret removed]')
    .replace(LONG_OPAQUE, '[value removed]')
    .replace(/\s+/g, ' ')
    .trim();
  return cutText(clean, maxLength);
}
