/**
 * Issue 32 item 2 in a real Chromium on the real local relay: the transactions list's provider filter is
 * the relay's provider registry (GET /v1/me), not a list of the console's own. A provider added as one
 * folder and one registry line (the fake provider of test/fixtures/providers/fake, registered through
 * the registry's injection point) is offered with no console change, and filtering by it keeps the URL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { registerProvider } from '../../shared/providers/registry';
import { fakeProvider } from '../fixtures/providers/fake';
import { useConsoleOnRelay } from './harness';

let unregister: (() => void) | undefined;
// Registered before the relay starts: the relay's registry is the one the console's filter lists.
beforeAll(() => {
  unregister = registerProvider(fakeProvider);
});
afterAll(() => unregister?.());

const t = useConsoleOnRelay(() => ({
  accounts: {
    momo: { open: { currency: 'EUR' } },
    fakepay: {
      shop: { pathSecret: 'fakepay-path-secret-0123456789', signingKey: 'fakepay-signing-key-0123' },
    },
  },
}));

describe('the transactions list’s provider filter', () => {
  it('offers every registered provider, the one added as a folder and a registry line included', async () => {
    // Prepare
    const page = await t.signedIn();
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
