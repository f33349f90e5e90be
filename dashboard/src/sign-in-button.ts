/**
 * The Sign in button of a connector waiting for a sign-in to its remote server: it opens a
 * tab in the click itself (a tab opened after an await is blocked as a pop-up), asks the
 * daemon for the authorization URL and sends the tab there; the row changes once the
 * sign-in is done in that tab.
 */
import { act } from './act';
import { call } from './api';
import { h } from './dom';

/** The button of `key`; `host` is told what it does and refreshes the page after. */
export function signInButton(
  host: { say(message: string, isError?: boolean): void; refresh(): void },
  key: string,
): HTMLButtonElement {
  return h(
    'button',
    {
      type: 'button',
      class: 'sign-in',
      'aria-label': `Sign in to ${key}`,
      onclick: () => {
        const tab = window.open('about:blank', '_blank');
        void act(host, `Starting the sign-in of ${key}`, async () => {
          try {
            const { authorizationUrl } = await call<{ authorizationUrl: string }>(
              'POST',
              `/connectors/${encodeURIComponent(key)}/authorize`,
            );
            if (!tab) {
              return `Your browser blocked the sign-in tab of ${key}: allow pop-ups for this page, then press Sign in again.`;
            }
            tab.opener = null;
            tab.location.href = authorizationUrl;
            return `The sign-in of ${key} is open in a new tab: finish it there, and this row changes once it is done.`;
          } catch (error) {
            tab?.close();
            throw error;
          }
        });
      },
    },
    'Sign in',
  );
}
