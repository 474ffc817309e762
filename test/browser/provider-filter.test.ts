/**
 * Issue 32 item 2 in a real Chromium on the real local relay: the transactions list's provider filter is
 * the relay's provider registry (GET /v1/me), not a list of the console's own. A provider added as one
 * folder and one registry line (the fake provider of test/fixtures/providers/fake, registered through
 * the registry's injection point) is offered with no console change, and filtering by it keeps the URL.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerProvider } from '../../shared/providers/registry';
import { fakeProvider } from '../fixtures/providers/fake';
import { launchChromium } from '../helpers/chromium';
import { ADMIN_TOKEN, startTestRelay, type TestRelay } from '../helpers/relay';

const WAIT_MS = 30_000;
let relay: TestRelay;
let browser: BrowserContext;
let profile: string;
let unregister: (() => void) | undefined;

beforeAll(async () => {
  unregister = registerProvider(fakeProvider);
  profile = mkdtempSync(join(tmpdir(), 'provider-filter-chromium-'));
  browser = await launchChromium(profile);
  relay = await startTestRelay({
    accounts: {
      momo: { open: { currency: 'EUR' } },
      fakepay: {
        shop: { pathSecret: 'fakepay-path-secret-0123456789', signingKey: 'fakepay-signing-key-0123' },
      },
    },
  });
});

afterAll(async () => {
  await browser?.close();
  await relay?.stop();
  unregister?.();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

describe('the transactions list’s provider filter', () => {
  it('offers every registered provider, the one added as a folder and a registry line included', async () => {
    // Prepare
    const page = await browser.newPage();
    page.setDefaultTimeout(WAIT_MS);
    await page.goto(`${relay.url}/console/`);
    await page.getByLabel('bearer token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: /Transactions/ }).waitFor();
    const filter = page.locator('select[name="provider"]');
    // Act
    await filter.locator('option[value="fakepay"]').waitFor({ state: 'attached' });
    const offered = await filter
      .locator('option')
      .evaluateAll((options) => options.map((o) => o.getAttribute('value') ?? ''));
    await filter.selectOption('fakepay');
    await page.getByRole('button', { name: 'Filter' }).click();
    // Assess
    expect(offered).toEqual(['', 'momo', 'airtel', 'daraja', 'fakepay']);
    await page.waitForURL(/provider=fakepay/);
    await page.close();
  });
});
