/**
 * Headless Chromium for the dashboard's browser tests: Debian's `chromium` at
 * /usr/bin/chromium (or $TUTTI_CHROMIUM) driven by playwright-core, with a fresh profile
 * and HOME in a temp folder and every flag that keeps it off the network. A missing
 * browser fails the test with what to install, never skips it.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';

/** Where the tests look for Chromium. */
export const CHROMIUM = process.env.TUTTI_CHROMIUM || '/usr/bin/chromium';

/** Without these Chromium reaches for the network at start (updates, sync, QUIC, GPU). */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A running browser: its context, and `close` that ends it and removes its profile. */
export interface TestBrowser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Starts Chromium with a new profile; throws what to install when it is missing. */
export async function startBrowser(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `The dashboard's browser tests drive Chromium at ${CHROMIUM}, which is not there: install it (Debian or Ubuntu: "apt-get install -y chromium"; see the README), or set TUTTI_CHROMIUM to a Chromium binary.`,
    );
  }
  const dir = await mkdtemp(join(tmpdir(), 'tutti-chromium-'));
  const context = await chromium.launchPersistentContext(join(dir, 'profile'), {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    env: {
      ...process.env,
      HOME: dir,
      XDG_CONFIG_HOME: join(dir, 'config'),
      XDG_CACHE_HOME: join(dir, 'cache'),
    },
    viewport: { width: 1366, height: 768 },
  });
  return {
    context,
    async close() {
      await context.close().catch(() => undefined);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
