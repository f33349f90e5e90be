/**
 * Every action an error message, an interface's advice, a failure event or a pending
 * release's reason tells someone to take exists: each `tuttid <command>` is a command of
 * the daemon binary (or a flag it takes), each `tutti connector <command>` a command of the
 * public CLI, and each dashboard button named is one the page shows.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, INTERFACE_ADVICE, PENDING_REASONS } from '@tutti/core/client';
import { FAILURE_ADVICE } from '@tutti/core/internal';
import { OPERATOR_USAGE } from './operator/index.js';

const PAGE = ['connectors-view.ts', 'sessions-view.ts'].map((file) =>
  readFileSync(new URL(`../../dashboard/src/${file}`, import.meta.url), 'utf8'),
);

/** Every text that tells a person or an agent what to do. */
function actionTexts(): [string, string][] {
  return [
    ...Object.entries(ERROR_CODES).map(([code, spec]): [string, string] => [code, spec.message]),
    ...Object.entries(INTERFACE_ADVICE).map(([status, advice]): [string, string] => [
      `advice ${status}`,
      advice,
    ]),
    ...Object.entries(FAILURE_ADVICE).map(([kind, advice]): [string, string] => [
      `failure advice ${kind}`,
      advice,
    ]),
    ...Object.entries(PENDING_REASONS).map(([why, reason]): [string, string] => [
      `pending reason ${why}`,
      reason,
    ]),
  ];
}

describe('the actions messages name', () => {
  it('name only tuttid commands that exist', () => {
    const commands = Object.keys(OPERATOR_USAGE);
    // Words a sentence goes on with after "tuttid", which name no command.
    const prose = new Set([
      'with',
      'again',
      'runs',
      'prints',
      'knows',
      'on',
      'changed',
      'writes',
      'takes',
    ]);
    for (const [where, text] of actionTexts()) {
      for (const [, word] of text.matchAll(/\btuttid ([a-z][a-z-]*)\b/g)) {
        if (prose.has(word!)) continue;
        expect(commands, `${where}: tuttid ${word}`).toContain(word);
      }
    }
  });

  it('name only the public connector command, available', () => {
    for (const [where, text] of actionTexts()) {
      for (const [, word] of text.matchAll(/\btutti connector ([a-z][a-z-]*)\b/g)) {
        expect(word, where).toBe('available');
      }
    }
  });

  it('name only dashboard buttons the page shows', () => {
    for (const [where, text] of actionTexts()) {
      for (const [, button] of text.matchAll(
        /\b(Retry|Roll back|Restart)\b(?= (?:tries|button))/g,
      )) {
        expect(PAGE.join('\n'), `${where}: ${button}`).toContain(`'${button}'`);
      }
    }
    // The ones the page's own texts name.
    for (const button of ['Retry', 'Roll back', 'Restart']) {
      expect(PAGE.join('\n')).toContain(`'${button}'`);
    }
  });
});
