/**
 * The Agents view in headless Chromium against a real `tuttid`: a binary registry entry
 * whose archive a loopback server serves (the test kit's recording agent packed as
 * `.tar.gz`) is installed through the page's form and listed with its version, source, size
 * on disk and provider; a wrong SHA-256 is refused with the daemon's error as the daemon
 * words it, leaving nothing listed; Remove is refused, verbatim, while a session of the
 * agent runs, and removes the agent and its files once the session is closed.
 * With TUTTI_SCREENSHOTS=1 (`npm run screenshots`) it saves the view to docs/.
 */
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { binaryAgentArchive, binaryEntry, WAIT } from '@tutti/test-kit';
import { startBrowser, type TestBrowser } from '@tutti/test-kit/browser';
import { type FileServer, startFileServer } from '@tutti/test-kit/file-server';
import { startTuttid, stopAll, type TuttidProcess } from '@tutti/test-kit/tuttid';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
const SCREENSHOTS = process.env.TUTTI_SCREENSHOTS === '1';
const ID = 'loopback-agent';
const NAME = 'Loopback agent';
/** A name and description holding markup: shown as text, never parsed. */
const MARKUP = '<img src="x" onerror="globalThis.markupRan = true">Markup';

let root: string;
let home: string;
let daemon: TuttidProcess;
let browser: TestBrowser;
let page: Page;
let files: FileServer;
/** The served archive's URL, and its registry entry with its SHA-256. */
let archive: string;
let entry: Record<string, unknown>;

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tutti-dashboard-agents-'));
  home = join(root, 'home');
  const { tgz, sha256 } = await binaryAgentArchive();
  files = await startFileServer({ '/agent.tar.gz': tgz });
  archive = `${files.url}/agent.tar.gz`;
  entry = { ...binaryEntry(ID, archive, sha256), name: NAME };
  [daemon, browser] = await Promise.all([startTuttid(home, ['--no-demo']), startBrowser()]);
  page = await browser.context.newPage();
  page.on('dialog', (dialog) => void dialog.accept());
});

afterAll(async () => {
  await browser?.close();
  await stopAll();
  await files?.close();
  await rm(root, { recursive: true, force: true });
});

const row = (id: string) => page.locator(`#agents tr[data-agent="${id}"]`);
const notice = () => page.locator('#notice');

/** Pastes `text` into the install form and presses Install. */
async function install(text: string): Promise<void> {
  await page.getByLabel('Registry entry', { exact: false }).fill(text);
  await page.getByRole('button', { name: 'Install', exact: true }).click();
}

/** Waits for the notice to read `text` (a failure says what it read instead). */
async function untilNotice(text: string | RegExp): Promise<void> {
  const said = expect.poll(async () => (await notice().textContent()) ?? '', WAIT);
  await (typeof text === 'string' ? said.toBe(text) : said.toMatch(text));
}

describe('the Agents view', () => {
  it('shows that no agent is installed', async () => {
    await page.goto(daemon.ready.dashboardLogin);
    await page.getByRole('button', { name: 'Agents', exact: true }).click();
    await page.getByText('No agent is installed.').waitFor(WAIT);
    expect(await page.locator('#agents').isHidden()).toBe(true);
  });

  it('installs a binary entry through the form and lists its version, source, size and provider', async () => {
    await install(JSON.stringify(entry, null, 2));
    await untilNotice(`Installed ${ID} 1.0.0.`);
    expect((await notice().getAttribute('class')) ?? '').not.toContain('error');
    await row(ID).waitFor(WAIT);
    const { body } = await daemon.control('GET', '/v1/agents');
    const listed = body.agents.find((agent: { id: string }) => agent.id === ID);
    expect(listed).toMatchObject({ version: '1.0.0', source: 'registry' });
    expect(listed.sizeBytes).toBeGreaterThan(0);
    const cell = (name: string) => row(ID).locator(`td.${name}`);
    expect(await cell('agent').textContent()).toContain(NAME);
    expect(await cell('agent').locator('code').textContent()).toBe(ID);
    expect(await cell('version').textContent()).toBe('1.0.0');
    expect(await cell('source').textContent()).toBe('registry');
    expect(await cell('size').getAttribute('data-bytes')).toBe(String(listed.sizeBytes));
    expect(await cell('size').textContent()).toMatch(/^\d+(\.\d)? (B|KiB|MiB)$/);
    expect(await cell('provider').textContent()).toBe('yes');
    expect(await cell('installed').locator('time').getAttribute('datetime')).toBe(
      new Date(listed.installedAt).toISOString(),
    );
    // The form is empty again, its scripts box off, its progress gone.
    expect(await page.locator('p.installing').isHidden()).toBe(true);
    expect(await page.locator('#agent-install').inputValue()).toBe('');
    expect(await page.locator('#agent-install-scripts').isChecked()).toBe(false);
    if (SCREENSHOTS) {
      await page.screenshot({ path: join(DOCS, 'dashboard-agents.png'), fullPage: true });
    }
  });

  it("refuses a wrong SHA-256 with the daemon's error and lists nothing new", async () => {
    const wrong = binaryEntry('refused-agent', archive, '0'.repeat(64));
    await install(JSON.stringify(wrong));
    await untilNotice(/^TUTTI_ERR_AGENT_CHECKSUM_MISMATCH: /);
    expect(await notice().getAttribute('class')).toContain('error');
    // What was typed stays, to be fixed.
    expect(await page.locator('#agent-install').inputValue()).toBe(JSON.stringify(wrong));
    const { body } = await daemon.control('GET', '/v1/agents');
    expect(body.agents.map((agent: { id: string }) => agent.id)).toEqual([ID]);
    expect(await row('refused-agent').count()).toBe(0);
    expect(existsSync(join(home, 'agents', 'refused-agent'))).toBe(false);
  });

  it("shows an agent's name and description as text, markup included", async () => {
    const id = 'markup-agent';
    const installed = await daemon.control('POST', '/v1/agents/install', {
      entry: { ...entry, id, name: MARKUP, description: MARKUP },
    });
    expect(installed.status, JSON.stringify(installed.body)).toBe(200);
    await page.getByRole('button', { name: 'Agents', exact: true }).click();
    const cell = row(id).locator('td.agent');
    await cell.waitFor(WAIT);
    expect(await cell.textContent()).toBe(`${MARKUP}${id}${MARKUP}`);
    expect(await cell.locator('img').count()).toBe(0);
    expect(await page.evaluate(() => 'markupRan' in globalThis)).toBe(false);
    expect((await daemon.control('DELETE', `/v1/agents/${id}`)).status).toBe(200);
    await page.getByRole('button', { name: 'Agents', exact: true }).click();
    await expect.poll(() => row(id).count(), WAIT).toBe(0);
  });

  it('says why Remove is refused while a session of the agent runs, and removes it after', async () => {
    const started = await daemon.control('POST', '/v1/sessions', {
      provider: ID,
      workspaceId: 'ws-dashboard-agents',
      cwd: root,
      // A registry agent no descriptor makes ask keeps its own approval rules.
      permissions: 'agent',
    });
    expect(started.status, JSON.stringify(started.body)).toBe(200);
    const session = started.body.session.id as string;
    // The refusal as the control API words it (a refused removal changes nothing).
    const refused = await daemon.control('DELETE', `/v1/agents/${ID}`);
    expect(refused.status, JSON.stringify(refused.body)).toBe(409);
    const { code, message } = refused.body.error as { code: string; message: string };
    expect(code).toBe('TUTTI_ERR_AGENT_IN_USE');
    await row(ID)
      .getByRole('button', { name: `Remove ${ID}` })
      .click();
    await untilNotice(`${code}: ${message}`);
    expect(await notice().getAttribute('class')).toContain('error');
    expect(await row(ID).count()).toBe(1);

    const closed = await daemon.control('DELETE', `/v1/sessions/${session}`);
    expect(closed.status, JSON.stringify(closed.body)).toBe(200);
    await row(ID)
      .getByRole('button', { name: `Remove ${ID}` })
      .click();
    await untilNotice(`Removed ${ID}.`);
    await expect.poll(() => row(ID).count(), WAIT).toBe(0);
    await page.getByText('No agent is installed.').waitFor(WAIT);
    expect((await daemon.control('GET', '/v1/agents')).body.agents).toEqual([]);
    expect(existsSync(join(home, 'agents', ID))).toBe(false);
  });
});
