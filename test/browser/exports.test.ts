/**
 * Issue 30 item 8 in a real Chromium on the real local relay (DynamoDB Local): the lists that had no
 * export — the four-eyes approvals, callback health — save a CSV of the rows the view shows with its
 * filters applied, and say how many rows they saved; the audit log's export (now the same button) keeps
 * its filters and names who exported what.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { launchChromium } from '../helpers/chromium';
import { ADMIN_TOKEN, startTestRelay, TEST_SEARCH_KEY, type TestRelay } from '../helpers/relay';

const WAIT_MS = 30_000;
const TOKENS = {
  ana: 'ana-operator-token-0123456789',
  bo: 'bo-admin-token-0123456789ab',
  vic: 'vic-viewer-token-0123456789',
};
let relay: TestRelay;
let browser: BrowserContext;
let profile: string;

beforeAll(async () => {
  profile = mkdtempSync(join(tmpdir(), 'exports-chromium-'));
  browser = await launchChromium(profile);
  relay = await startTestRelay({
    management: {
      auth: 'bearer',
      bearerToken: ADMIN_TOKEN,
      searchKey: TEST_SEARCH_KEY,
      tokens: [
        { name: 'ana', role: 'operator', token: TOKENS.ana },
        { name: 'bo', role: 'admin', token: TOKENS.bo },
        { name: 'vic', role: 'viewer', token: TOKENS.vic },
      ],
      resolveLimits: { 'momo/open': '500' },
    },
    reconciliation: { pollIntervalSeconds: 0.2 },
    accounts: { momo: { open: { currency: 'EUR' }, quiet: { currency: 'EUR' } } },
  });
});

afterAll(async () => {
  await browser?.close();
  await relay?.stop();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

let open: Page[] = [];
afterEach(async () => {
  await Promise.all(open.map((p) => p.close()));
  open = [];
});

const as = (who: keyof typeof TOKENS) => ({ authorization: `Bearer ${TOKENS[who]}` });

/** A MoMo payment on momo/open with a 1 s window, waited for until the poller expires it. */
async function expiredPayment(amount: string): Promise<string> {
  const reference = randomUUID();
  const registered = await relay.request(
    'POST',
    '/v1/transactions',
    {
      provider: 'momo',
      account: 'open',
      kind: 'requesttopay',
      reference,
      amount,
      currency: 'EUR',
      expiresInSeconds: 1,
    },
    as('ana'),
  );
  expect(registered.status).toBe(201);
  await vi.waitFor(
    async () =>
      expect(
        (await relay.request('GET', `/v1/transactions/momo/open/${reference}`, undefined, as('vic'))).body
          .transaction.status,
      ).toBe('EXPIRED'),
    { timeout: WAIT_MS, interval: 200 },
  );
  return reference;
}

async function signedIn(who: keyof typeof TOKENS): Promise<Page> {
  const page = await browser.newPage();
  open.push(page);
  page.setDefaultTimeout(WAIT_MS);
  page.on('pageerror', (error) => process.stderr.write(`console page error: ${error.message}\n`));
  await page.goto(`${relay.url}/console/#/signin`);
  await page.getByLabel('bearer token').fill(TOKENS[who]);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('who').getByText(who).waitFor();
  return page;
}

/** Clicks an export button and reads the file the browser saved: its name and its lines. */
async function exported(page: Page, testId: string): Promise<{ name: string; lines: string[] }> {
  const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId(testId).click()]);
  const csv = readFileSync((await download.path())!, 'utf8');
  return { name: download.suggestedFilename(), lines: csv.trimEnd().split('\r\n') };
}

describe('CSV exports of every list in the console', () => {
  it('exports the approvals in the state filtered: a viewer saves the pending request only', async () => {
    // Prepare: two resolutions above the limit wait; the admin rejects one.
    const kept = await expiredPayment('600');
    const dropped = await expiredPayment('700');
    const asked = async (reference: string) =>
      relay.request(
        'POST',
        `/v1/transactions/momo/open/${reference}/resolve`,
        { status: 'FAILED', note: `ticket for ${reference}` },
        as('ana'),
      );
    const keptAsk = await asked(kept);
    const droppedAsk = await asked(dropped);
    expect([keptAsk.status, droppedAsk.status]).toEqual([202, 202]);
    const rejected = await relay.request(
      'POST',
      `/v1/approvals/${droppedAsk.body.approval.id}/reject`,
      { note: 'no' },
      as('bo'),
    );
    expect(rejected.status).toBe(200);
    const vic = await signedIn('vic');

    // Act: the list filtered to pending, as a viewer, then its export.
    await vic.goto(`${relay.url}/console/#/approvals`);
    await vic.getByLabel('state').selectOption('pending');
    await vic.getByTestId('approval-filters').getByRole('button', { name: 'Filter' }).click();
    await vic.waitForURL(/state=pending/);
    await vic.getByTestId('approval-row').first().waitFor();
    const shown = await vic.getByTestId('approval-row').allInnerTexts();
    const file = await exported(vic, 'approvals-csv');
    await vic.getByTestId('approvals-csv-said').getByText('rows saved').waitFor();

    // Assess: the rows shown are the rows saved, each pending; the rejected one is in neither.
    expect(file.name).toBe('relay-approvals.csv');
    const rows = file.lines.slice(1);
    expect(rows).toHaveLength(shown.length);
    expect(rows.some((r) => r.includes(kept))).toBe(true);
    expect(rows.every((r) => r.includes(',pending,'))).toBe(true);
    expect(file.lines.join('\n')).not.toContain(dropped);
    expect(shown.join('\n')).not.toContain(dropped);
    expect(await vic.getByTestId('approvals-csv-said').textContent()).toBe(` ${rows.length} rows saved.`);
  });

  it('exports callback health for the account filtered', async () => {
    // Prepare
    const vic = await signedIn('vic');

    // Act
    await vic.goto(`${relay.url}/console/#/health?account=quiet`);
    await vic.getByTestId('health-row').first().waitFor();
    const shown = await vic.getByTestId('health-row').allInnerTexts();
    const file = await exported(vic, 'health-csv');

    // Assess: the one account shown, and only it, with its 24 hours.
    expect(shown).toHaveLength(1);
    expect(file.name).toBe('relay-callback-health.csv');
    expect(file.lines[0]!.split(',')).toHaveLength(7 + 24);
    expect(file.lines.slice(1).map((l) => l.split(',').slice(0, 2).join('/'))).toEqual(['momo/quiet']);
  });

  it('exports the audit log with its filters, and the exports are in it naming who took them', async () => {
    // Prepare: the viewer exported the approvals (the audit names that action).
    const vicExport = await relay.request('GET', '/v1/approvals?format=csv', undefined, as('vic'));
    expect(vicExport.status).toBe(200);
    const bo = await signedIn('bo');

    // Act
    await bo.goto(`${relay.url}/console/#/audit?action=approvals.export`);
    await bo.getByTestId('audit-row').first().waitFor();
    const file = await exported(bo, 'audit-csv');

    // Assess: every row is an approvals export, by vic (the filter), and the console said how many.
    expect(file.name).toBe('relay-audit.csv');
    const rows = file.lines.slice(1);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((r) => r.includes(',approvals.export,'))).toBe(true);
    expect(rows.some((r) => r.includes(',vic,vic,viewer,'))).toBe(true);
    await bo.getByTestId('audit-csv-said').getByText(`${rows.length} rows saved.`).waitFor();
  });
});
