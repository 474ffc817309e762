/**
 * Issue 30 item 6, in a real Chromium on the real local relay: the list says "live" only while its event
 * stream is open; with the relay stopped mid-session a banner says so and the console tries again with
 * back-off; when the relay is back, the banner goes and the view is current again without a reload; a
 * view that is left closes its stream (counted by the relay itself, the connections it holds open).
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { ADMIN_TOKEN, startTestRelay, type TestRelay } from '../helpers/relay';
import { BACKOFF } from '../../console/connection';
import { useChromium, WAIT_MS } from './harness';

const CONFIG = { accounts: { momo: { demo: { currency: 'EUR' } } } };
// The relay is this file's own (not the harness's): a test stops it and starts another on its port.
let relay: TestRelay;
let page: Page;
const chromium = useChromium();

beforeAll(async () => {
  relay = await startTestRelay(CONFIG);
  page = await chromium.newPage({ forTheFile: true });
});

afterAll(async () => relay?.stop());

async function register(): Promise<string> {
  const reference = randomUUID();
  const answer = await relay.admin('POST', '/v1/transactions', {
    provider: 'momo',
    account: 'demo',
    kind: 'requesttopay',
    reference,
    amount: '10',
    currency: 'EUR',
  });
  expect(answer.status).toBe(201);
  return reference;
}

const live = () => page.getByTestId('live');
const openStreams = async (n: number) =>
  vi.waitFor(() => expect(relay.openEventStreams()).toBe(n), { timeout: WAIT_MS, interval: 50 });

describe('honest liveness in the console', () => {
  it('signs in and says live only once the event stream is open', async () => {
    await page.goto(`${relay.url}/console/`);
    await page.getByLabel('bearer token').fill(ADMIN_TOKEN);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('[data-testid=live][data-state=live]').waitFor();
    await openStreams(1);
    expect(await live().textContent()).toContain('live');
  });

  it('closes the stream when the list is left, however often it is opened and left', async () => {
    // Act: to another view and back, five times.
    for (let i = 0; i < 5; i++) {
      await page.goto(`${relay.url}/console/#/report`);
      await page.getByRole('heading', { name: 'Reconciliation' }).waitFor();
      await page.goto(`${relay.url}/console/#/transactions`);
      await page.locator('[data-testid=live][data-state=live]').waitFor();
    }
    // Act: left at once, before its first page is even listed (the stream must not open after all).
    for (let i = 0; i < 5; i++)
      await page.evaluate("location.hash = '#/transactions?k=" + i + "'; location.hash = '#/health'");
    await page.getByRole('heading', { name: /Callback health/ }).waitFor();
    await openStreams(0);
    await page.evaluate("location.hash = '#/transactions'");
    await page.locator('[data-testid=live][data-state=live]').waitFor();
    // Assess: one stream for the one list on screen; none once it is left.
    await openStreams(1);
    await page.evaluate("location.hash = '#/health'");
    await page.getByRole('heading', { name: /Callback health/ }).waitFor();
    await openStreams(0);
  });

  it('shows a banner when the relay stops mid-session, and recovers on its own when it is back, without a reload', async () => {
    // Prepare: the list, live; a mark on the window that a reload would wipe.
    await page.evaluate("location.hash = '#/transactions'");
    await page.locator('[data-testid=live][data-state=live]').waitFor();
    await page.evaluate('window.__sameDocument = true');
    const banner = page.locator('#banner');
    expect(await banner.isHidden()).toBe(true);
    const port = relay.port;

    // Act: the relay stops.
    await relay.stop();

    // Assess: the banner, and the indicator no longer says live.
    await banner.getByText('The relay is not answering').waitFor();
    await page.locator('[data-testid=live]:not([data-state=live])').waitFor();
    expect(await banner.textContent()).toMatch(/Trying again/);

    // Act: the relay is back on the same address (a fresh table: what it lists now is new).
    relay = await startTestRelay(CONFIG, { port });
    const reference = await register();

    // Assess: the banner goes by itself, the view shows the new relay's transaction, live again, and it
    // is the same document (no reload).
    // The stream retries on its back-off (capped at BACKOFF.maxMs, 30 s): a slow restart can put its
    // next try up to 30 s away, so the waits allow the cap and more (conditions, not a speed check).
    const afterBackoff = { timeout: BACKOFF.maxMs * 2 };
    await banner.waitFor({ state: 'hidden', ...afterBackoff });
    await page.locator(`[data-testid=tx-row][data-reference="${reference}"]`).waitFor(afterBackoff);
    await page.locator('[data-testid=live][data-state=live]').waitFor(afterBackoff);
    expect(await page.evaluate('window.__sameDocument === true')).toBe(true);
    await openStreams(1);
  }, 240_000);

  it('shows a banner, not a bare "Failed to fetch", on another view while the relay is away, and draws it when back', async () => {
    // Prepare
    await page.evaluate("location.hash = '#/report'");
    await page.getByTestId('report-summary').waitFor();
    const port = relay.port;
    await relay.stop();
    // Act: a view opened while the relay is away.
    await page.evaluate("location.hash = '#/health'");
    // Assess
    await page.locator('#banner').getByText('The relay is not answering').waitFor();
    expect(await page.locator('main').textContent()).not.toContain('Failed to fetch');
    relay = await startTestRelay(CONFIG, { port });
    await page.locator('#banner').waitFor({ state: 'hidden' });
    await page.getByTestId('health-row').first().waitFor();
  });
});
