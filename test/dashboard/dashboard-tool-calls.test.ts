/**
 * The Tool calls view in headless Chromium against a real `tuttid` with two fixture
 * connectors (the stdio upstream fixture as `alpha` and `beta`): calls made through the
 * connector server, some that succeed and some that fail, are shown newest first with their
 * outcomes, as `GET /v1/audit` has them; the filters, "Load older", a new call shown without
 * a reload, and no read while another view is shown. The daemon captures argument values
 * (`--audit-values`), and none of them reaches the page.
 * With TUTTI_SCREENSHOTS=1 (`npm run screenshots`) it saves the view to docs/.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cleanUp, mcpRequest, WAIT, writeRelease } from '@tutti/test-kit';
import { startBrowser, type TestBrowser } from '@tutti/test-kit/browser';
import { startTuttid, stopAll, type TuttidProcess, waitForConnector } from '@tutti/test-kit/tuttid';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const DOCS = fileURLToPath(new URL('../../docs/', import.meta.url));
const SCREENSHOTS = process.env.TUTTI_SCREENSHOTS === '1';
/** An argument value the daemon captures and no page may hold. */
const ARGUMENT = 'argument-value-9d41c7';

/** A call as the test reads it from the page or from `GET /v1/audit`. */
interface Shown {
  readonly seq: number;
  readonly connector: string;
  readonly tool: string;
  readonly outcome: string;
}

let root: string;
let daemon: TuttidProcess;
let browser: TestBrowser;
let page: Page;
let token: string;
/** The query of every `/dashboard/api/audit` request the page made, and every answer's text. */
const asked: string[] = [];
const answers: Promise<string>[] = [];

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'tutti-dashboard-calls-'));
  [daemon, browser] = await Promise.all([
    startTuttid(join(root, 'home'), ['--audit-values']),
    startBrowser(),
  ]);
  for (const key of ['alpha', 'beta']) {
    const path = await writeRelease({ key, serverArgs: [] });
    expect((await daemon.control('POST', '/v1/connectors/install', { path })).status).toBe(200);
    await waitForConnector(daemon, key);
  }
  const session = await daemon.control('POST', '/v1/sessions', {
    workspaceId: 'ws-calls',
    cwd: root,
  });
  expect(session.status).toBe(200);
  token = session.body.runtime.mcpServers[0].headers.Authorization.slice('Bearer '.length);
  page = await browser.context.newPage();
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname === '/dashboard/api/audit') asked.push(url.search);
  });
  page.on('response', (response) => {
    if (new URL(response.url()).pathname !== '/dashboard/api/audit') return;
    answers.push(response.text().catch(() => ''));
  });
});

afterAll(async () => {
  await browser?.close();
  await stopAll();
  await cleanUp();
  await rm(root, { recursive: true, force: true });
});

/** Calls `name` through the daemon's connector server, as an agent of the session does. */
async function callTool(name: string, args: Record<string, unknown> = {}): Promise<void> {
  const binding = { url: daemon.ready.mcpUrl, headers: { authorization: `Bearer ${token}` } };
  const { status } = await mcpRequest(binding, 'tools/call', { name, arguments: args });
  expect(status).toBe(200);
}

/** The calls `GET /v1/audit` answers for `query`, newest first. */
async function trail(query = ''): Promise<Shown[]> {
  const { status, body } = await daemon.control('GET', `/v1/audit?limit=1000${query}`);
  expect(status).toBe(200);
  return (body.records as (Shown & { connector?: string })[]).map((record) => ({
    seq: record.seq,
    connector: record.connector ?? '',
    tool: record.tool,
    outcome: record.outcome,
  }));
}

/** Waits until the trail holds `count` calls for `query`; returns them. */
async function trailOf(count: number, query = ''): Promise<Shown[]> {
  await expect.poll(async () => (await trail(query)).length, WAIT).toBe(count);
  return trail(query);
}

/** The calls the page shows, top to bottom. */
function shown(): Promise<Shown[]> {
  return page.locator('#calls tbody tr').evaluateAll((rows) =>
    rows.map((row) => ({
      seq: Number(row.getAttribute('data-seq')),
      connector: row.getAttribute('data-connector') ?? '',
      tool: row.querySelector('td.tool code')?.textContent ?? '',
      outcome: row.getAttribute('data-outcome') ?? '',
    })),
  );
}

/** The outcome column's text of the row of `seq`. */
function outcomeText(seq: number): Promise<string | null> {
  return page.locator(`#calls tr[data-seq="${seq}"] td`).nth(4).textContent();
}

describe('the tool calls view', () => {
  it('shows the calls agents made, newest first, each outcome in words', async () => {
    await callTool('alpha_echo', { text: ARGUMENT });
    await callTool('alpha_fail', { reason: ARGUMENT });
    await callTool('beta_echo', { text: ARGUMENT });
    await callTool('beta_fail', { rpcCode: -32000, reason: ARGUMENT });
    await callTool('nobody_such_tool', { text: ARGUMENT });
    const calls = await trailOf(5);
    // The daemon keeps the values (redacted, capped): its control API answers them.
    const captured = await daemon.control('GET', '/v1/audit');
    expect(captured.body.records[0].arguments).toContain(ARGUMENT);
    expect(calls.map((call) => call.outcome)).toEqual([
      'rpc_error',
      'rpc_error',
      'ok',
      'tool_error',
      'ok',
    ]);

    await page.goto(daemon.ready.dashboardLogin);
    await page.evaluate(() => {
      (globalThis as unknown as { notReloaded?: boolean }).notReloaded = true;
    });
    await page.getByRole('button', { name: 'Tool calls', exact: true }).click();
    await expect.poll(shown, WAIT).toEqual(calls);
    const [unknown, upstreamRefused, , toolFailed, ok] = calls as Shown[];
    expect(unknown?.connector).toBe('');
    expect(await outcomeText(unknown!.seq)).toBe('✗ JSON-RPC error');
    expect(await outcomeText(upstreamRefused!.seq)).toBe('✗ JSON-RPC error');
    expect(await outcomeText(toolFailed!.seq)).toBe('✗ tool error');
    expect(await outcomeText(ok!.seq)).toBe('✓ ok');
    // A failed call says the daemon's error code and the JSON-RPC code the agent got.
    const refused = captured.body.records[1];
    expect(refused.code).toMatch(/^TUTTI_ERR_/);
    const failure = page.locator(`#calls tr[data-seq="${upstreamRefused!.seq}"] td.failure`);
    expect(await failure.textContent()).toBe(`${refused.code}JSON-RPC ${refused.rpcCode}`);
    expect(await page.content()).not.toContain(ARGUMENT);
    if (SCREENSHOTS) {
      await page.screenshot({ path: join(DOCS, 'dashboard-tool-calls.png'), fullPage: true });
    }
  });

  it('filters by connector and by outcome', async () => {
    const connector = page.getByLabel('Connector', { exact: true });
    const outcome = page.getByLabel('Outcome', { exact: true });
    expect(await connector.locator('option').allTextContents()).toEqual(
      expect.arrayContaining(['All connectors', 'alpha', 'beta']),
    );
    await connector.selectOption('alpha');
    await expect.poll(shown, WAIT).toEqual(await trail('&connector=alpha'));
    expect((await shown()).map((call) => call.tool)).toEqual(['alpha_fail', 'alpha_echo']);
    await outcome.selectOption('tool_error');
    await expect.poll(shown, WAIT).toEqual(await trail('&connector=alpha&outcome=tool_error'));
    expect((await shown()).map((call) => call.tool)).toEqual(['alpha_fail']);
    await connector.selectOption('');
    await outcome.selectOption('rpc_error');
    await expect.poll(shown, WAIT).toEqual(await trail('&outcome=rpc_error'));
    expect((await shown()).length).toBe(2);
    await outcome.selectOption('ok');
    await connector.selectOption('beta');
    await expect.poll(shown, WAIT).toEqual(await trail('&connector=beta&outcome=ok'));
    await outcome.selectOption('');
    await connector.selectOption('');
    await expect.poll(shown, WAIT).toEqual(await trail());
  });

  it('shows a new call at the top without a reload, under the filters chosen', async () => {
    const top = (await shown())[0]!.seq;
    await callTool('beta_echo', { text: ARGUMENT });
    await expect.poll(async () => (await shown())[0], WAIT).toMatchObject({ tool: 'beta_echo' });
    expect((await shown())[0]!.seq).toBeGreaterThan(top);
    expect(await shown()).toEqual(await trail());

    await page.getByLabel('Outcome', { exact: true }).selectOption('tool_error');
    await expect.poll(shown, WAIT).toEqual(await trail('&outcome=tool_error'));
    await callTool('alpha_echo', { text: ARGUMENT });
    await callTool('alpha_fail', { reason: ARGUMENT });
    await expect.poll(async () => (await shown()).length, WAIT).toBe(2);
    expect(await shown()).toEqual(await trail('&outcome=tool_error'));
    expect((await shown()).every((call) => call.outcome === 'tool_error')).toBe(true);
    await page.getByLabel('Outcome', { exact: true }).selectOption('');
    expect(
      await page.evaluate(() => (globalThis as unknown as { notReloaded?: boolean }).notReloaded),
    ).toBe(true);
    expect(await page.content()).not.toContain(ARGUMENT);
  });

  it('reads older calls with "Load older" until the oldest one', async () => {
    const earlier = (await trail('&connector=beta')).length;
    for (let i = 0; i < 105; i++) await callTool('beta_echo', { text: `${i}` });
    const beta = await trailOf(earlier + 105, '&connector=beta');
    await page.getByLabel('Connector', { exact: true }).selectOption('beta');
    await expect.poll(async () => (await shown()).length, WAIT).toBe(100);
    expect(await shown()).toEqual(beta.slice(0, 100));
    const older = page.getByRole('button', { name: 'Load older' });
    await older.click();
    await expect.poll(shown, WAIT).toEqual(beta);
    expect(await older.isHidden()).toBe(true);
    await page.getByLabel('Connector', { exact: true }).selectOption('');
  });

  it('asks for no calls while another view is shown, and catches up when shown again', async () => {
    await page.getByRole('button', { name: 'Connectors', exact: true }).click();
    await page.getByRole('heading', { name: 'Connectors' }).waitFor(WAIT);
    // A read under way when the view was left may still end; none starts after it.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const before = asked.length;
    await callTool('alpha_echo', { text: ARGUMENT });
    await new Promise((resolve) => setTimeout(resolve, 5000));
    expect(asked.slice(before)).toEqual([]);
    await page.getByRole('button', { name: 'Tool calls', exact: true }).click();
    await expect.poll(async () => (await shown())[0]?.tool, WAIT).toBe('alpha_echo');
    expect(asked.length).toBeGreaterThan(before);
    expect(await shown()).toEqual((await trail()).slice(0, (await shown()).length));
  });

  it('got no argument or result value in any answer', async () => {
    const texts = await Promise.all(answers);
    expect(texts.length).toBeGreaterThan(10);
    expect(texts.filter((text) => text.includes(ARGUMENT))).toEqual([]);
    expect(texts.filter((text) => /"(arguments|result)"/.test(text))).toEqual([]);
    expect(await page.content()).not.toContain(ARGUMENT);
  });
});
