/**
 * Issue 30 "Done when", in a real Chromium on the real local relay (DynamoDB Local): two people with
 * different roles — the operator resolves one payment under the account's limit; their resolution of a
 * larger one waits until the admin approves it; both names appear in the story, the event and the audit
 * log; a viewer is not offered the resolution and the API refuses it (403 naming the role).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { randomUUID } from 'node:crypto';
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
  profile = mkdtempSync(join(tmpdir(), 'accountability-chromium-'));
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
    accounts: { momo: { open: { currency: 'EUR' } } },
  });
});

afterAll(async () => {
  await browser?.close();
  await relay?.stop();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

const as = (who: keyof typeof TOKENS) => ({ authorization: `Bearer ${TOKENS[who]}` });

/** A MoMo payment registered with a 1 s window, waited for until the poller expires it. */
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
  page.setDefaultTimeout(WAIT_MS);
  page.on('pageerror', (error) => process.stderr.write(`console page error: ${error.message}\n`));
  // The sign-in page itself: a tab opened elsewhere would take the sign-in of the person already signed
  // in in this browser (docs/console.md#a-transaction-in-a-new-tab); this is another person.
  await page.goto(`${relay.url}/console/#/signin`);
  await page.getByLabel('bearer token').fill(TOKENS[who]);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('who').getByText(who).waitFor();
  return page;
}

async function resolveInConsole(page: Page, reference: string, note: string): Promise<void> {
  await page.goto(`${relay.url}/console/#/tx/momo/open/${reference}`);
  await page.getByTestId('resolve').click();
  const form = page.getByTestId('resolve-form');
  await form.getByLabel('Outcome').selectOption('FAILED');
  await form.getByLabel(/Note/).fill(note);
  await form.getByRole('button', { name: 'Review' }).click();
  await form.getByRole('button', { name: 'Confirm FAILED' }).click();
}

describe('accountable operations in the console', () => {
  it('an operator resolves under the limit; above it the admin approves; both are named everywhere; a viewer cannot resolve', async () => {
    // Prepare
    const small = await expiredPayment('100');
    const large = await expiredPayment('1000');
    const ana = await signedIn('ana');
    const bo = await signedIn('bo');
    const vic = await signedIn('vic');

    // Act: ana resolves both; bo approves the large one in Approvals.
    await resolveInConsole(ana, small, 'customer never approved (ticket 7)');
    await ana.getByTestId('story-title').getByText('FAILED').waitFor();
    await resolveInConsole(ana, large, 'statement shows no debit (ticket 8)');
    await ana.getByTestId('resolve-pending').waitFor();
    const waiting = (await relay.request('GET', `/v1/transactions/momo/open/${large}`, undefined, as('vic')))
      .body.transaction.status;
    await bo.goto(`${relay.url}/console/#/approvals`);
    await bo.getByTestId('approval-row').filter({ hasText: large }).getByTestId('approval-approve').click();
    await bo
      .getByTestId('approval-row')
      .filter({ hasText: large })
      .getByTestId('approval-state')
      .getByText('approved')
      .waitFor();
    // vic: no resolve button in the story, and the API refuses the call.
    await vic.goto(`${relay.url}/console/#/tx/momo/open/${small}`);
    await vic.getByTestId('story-title').waitFor();
    const vicResolve = await relay.request(
      'POST',
      `/v1/transactions/momo/open/${small}/resolve`,
      { status: 'FAILED', note: 'viewer tries' },
      as('vic'),
    );

    // Assess: the large one waited, then settled naming both.
    expect(waiting).toBe('EXPIRED');
    await bo.goto(`${relay.url}/console/#/tx/momo/open/${large}`);
    await bo.getByTestId('story-title').getByText('FAILED').waitFor();
    const story = await bo.locator('main').innerText();
    expect(story).toContain('by ana (operator), approved by bo (admin)');
    const events = await relay.flush();
    const failedLarge = events.find(
      (e) => e.metadata.type === 'TransactionFailed' && JSON.stringify(e.data).includes(large),
    );
    expect((failedLarge!.data as any).resolvedByHand).toMatchObject({
      by: { name: 'ana' },
      approvedBy: { name: 'bo' },
    });
    const failedSmall = events.find(
      (e) => e.metadata.type === 'TransactionFailed' && JSON.stringify(e.data).includes(small),
    );
    expect((failedSmall!.data as any).resolvedByHand.by).toMatchObject({ name: 'ana', role: 'operator' });
    await bo.goto(`${relay.url}/console/#/audit`);
    await bo.getByTestId('audit-table').waitFor();
    const audit = await bo.getByTestId('audit-table').innerText();
    expect(audit).toContain('ana (operator)');
    expect(audit).toContain('bo (admin)');
    expect(audit).toContain('approval.approve');
    expect(audit).toContain('vic (viewer)');
    expect(await vic.getByTestId('resolve').count()).toBe(0);
    expect(await vic.getByTestId('check-now').count()).toBe(0);
    expect(vicResolve.status).toBe(403);
    expect(vicResolve.body.error).toMatchObject({ code: 'FORBIDDEN_ROLE', requiredRole: 'operator' });
  });
});
