/**
 * Issue 30 item 8 in a real Chromium on the real local relay (DynamoDB Local): every time the console
 * shows is in the provider's business time zone by default (here Africa/Nairobi, UTC+3, no summer time),
 * a switch shows UTC instead and is remembered by the browser; a transaction's link opened in a new tab is
 * signed in by the tab already open (no second sign-in), and a sign-out signs every tab out; the
 * quarantine's list exports as CSV with its filters.
 */
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../helpers/relay';
import { expiredByPoller, exported, useConsoleOnRelay } from './harness';

const t = useConsoleOnRelay(() => ({
  accounts: { momo: { open: { currency: 'EUR' } } },
  // The account's business day is Nairobi's: the console's default zone follows it.
  statements: { accounts: { 'momo/open': { timeZone: 'Africa/Nairobi' } } },
}));

/** A payment that expired and was then resolved by hand: its story's sentence names a time. */
async function resolvedPayment(): Promise<{ reference: string; resolvedAt: string; createdAt: string }> {
  const reference = randomUUID();
  const registered = await t.relay.admin('POST', '/v1/transactions', {
    provider: 'momo',
    account: 'open',
    kind: 'requesttopay',
    reference,
    amount: '10',
    currency: 'EUR',
    expiresInSeconds: 1,
  });
  expect(registered.status).toBe(201);
  const path = `/v1/transactions/momo/open/${reference}`;
  await expiredByPoller(t, async () => (await t.relay.admin('GET', path)).body.transaction.status);
  const resolved = await t.relay.admin('POST', `${path}/resolve`, { status: 'FAILED', note: 'ticket 9' });
  expect(resolved.status).toBe(200);
  const story = (await t.relay.admin('GET', path)).body;
  const manual = story.history.find((e: any) => e.type === 'transition' && e.origin === 'manual');
  return { reference, resolvedAt: manual.evidence.at, createdAt: story.transaction.createdAt };
}

/** "HH:MM" of an instant in Nairobi (UTC+3 all year) and in UTC. */
const nairobiClock = (iso: string) => new Date(Date.parse(iso) + 3 * 3600_000).toISOString().slice(11, 16);
const utcClock = (iso: string) => iso.slice(11, 16);
/** The full instant as the console writes it in Nairobi. */
const nairobiInstant = (iso: string) =>
  `${new Date(Date.parse(iso) + 3 * 3600_000).toISOString().slice(0, 19).replace('T', ' ')} +03:00`;

describe('time zones, tabs and exports in the console', () => {
  it('shows every time in the business time zone by default, in UTC once switched, and remembers the choice', async () => {
    // Prepare
    const { reference, resolvedAt, createdAt } = await resolvedPayment();
    const page = await t.signedIn();
    const story = `${t.relay.url}/console/#/tx/momo/open/${reference}`;

    // Act: the story as it opens (the default), then with UTC chosen, then after a reload.
    await page.goto(story);
    const sentence = page.getByTestId('story-sentence');
    await sentence.getByText('decided by hand').waitFor();
    const business = {
      label: await page.getByTestId('zone').locator('option:checked').textContent(),
      sentence: await sentence.textContent(),
      main: await page.locator('main').innerText(),
    };
    await page.getByTestId('zone').selectOption('utc');
    await sentence.getByText(`at ${utcClock(resolvedAt)}`).waitFor();
    const utc = { sentence: await sentence.textContent(), main: await page.locator('main').innerText() };
    await page.reload();
    await sentence.getByText('decided by hand').waitFor();
    const remembered = {
      choice: await page.getByTestId('zone').inputValue(),
      sentence: await sentence.textContent(),
    };
    await page.goto(`${t.relay.url}/console/#/transactions`);
    const row = page.locator(`[data-testid=tx-row][data-reference="${reference}"]`);
    await row.waitFor();
    const utcRow = await row.innerText();
    await page.getByTestId('zone').selectOption('business');
    await row.getByText('+03:00').waitFor();

    // Assess: Nairobi's clock by default, on the sentence and the timeline; UTC's once chosen, and after a
    // reload too.
    expect(business.label).toBe('Business (Africa/Nairobi)');
    expect(business.sentence).toContain(`at ${nairobiClock(resolvedAt)}.`);
    expect(business.main).toContain(nairobiInstant(createdAt));
    expect(utc.sentence).toContain(`at ${utcClock(resolvedAt)}.`);
    expect(utc.main).not.toContain('+03:00');
    expect(utc.main).toMatch(/\d\d:\d\d:\d\dZ/);
    expect(remembered).toEqual({ choice: 'utc', sentence: utc.sentence });
    expect(utcRow).not.toContain('+03:00');
  });

  it("opens a transaction's link in a new tab signed in by the open tab, and a sign-out signs both out", async () => {
    // Prepare
    const { reference } = await resolvedPayment();
    const first = await t.signedIn();

    // Act: the story's link opened in a new tab (a new page of the same browser: nothing shared but the
    // origin; sessionStorage is per tab).
    const second = await t.newPage();
    await second.goto(`${t.relay.url}/console/#/tx/momo/open/${reference}`);
    await second.getByTestId('story-title').getByText('FAILED').waitFor();
    const secondToken = await second.evaluate("sessionStorage.getItem('relay-console.token')");
    const onDisk = await second.evaluate('localStorage.length');
    await first.getByRole('link', { name: 'Sign out' }).click();
    await second.getByTestId('signin').waitFor();

    // Assess: the second tab never asked for the token, holds it only in its own tab, and forgot it when
    // the first signed out.
    expect(secondToken).toBe(ADMIN_TOKEN);
    expect(
      await second.evaluate(
        "Object.keys(localStorage).filter((k) => localStorage.getItem(k).includes('test-admin'))",
      ),
    ).toEqual([]);
    expect(onDisk).toBeLessThanOrEqual(1); // the time-zone choice, at most
    expect(await second.evaluate("sessionStorage.getItem('relay-console.token')")).toBeNull();
  });

  it('keeps a tab signed out by another tab’s sign-out, though a tab that has not heard of it yet would hand its sign-in back', async () => {
    // Prepare: one tab signed in, a second handed its sign-in, and a page of the same origin standing for a
    // third tab that hears of the sign-out late: it answers every ask with the token, and counts the asks.
    const { reference } = await resolvedPayment();
    const first = await t.signedIn();
    const second = await t.newPage();
    await second.goto(`${t.relay.url}/console/#/tx/momo/open/${reference}`);
    await second.getByTestId('story-title').waitFor();
    const late = await t.newPage();
    await late.goto(`${t.relay.url}/health`);
    await late.evaluate(`(() => {
      window.asks = 0;
      window.probes = 0;
      const channel = new BroadcastChannel('relay-console.sign-in');
      channel.onmessage = (m) => {
        if (m.data?.type === 'ask') {
          window.asks++;
          channel.postMessage({ type: 'token', to: m.data.id, token: ${JSON.stringify(ADMIN_TOKEN)} });
        }
        if (m.data?.type === 'probe') window.probes++;
      };
    })()`);

    // Act: the first tab signs out; the second shows the sign-in page, then posts a probe. An ask it made on
    // hearing of the sign-out was posted before the probe: once the late tab has the probe, it had the ask.
    await first.getByRole('link', { name: 'Sign out' }).click();
    await second.getByTestId('signin').waitFor();
    await second.evaluate("new BroadcastChannel('relay-console.sign-in').postMessage({ type: 'probe' })");
    await late.waitForFunction('window.probes === 1');

    // Assess: the second tab asked nobody, and holds no token.
    expect(await late.evaluate('window.asks')).toBe(0);
    expect(await second.evaluate("sessionStorage.getItem('relay-console.token')")).toBeNull();
    expect(await second.getByTestId('signin').isVisible()).toBe(true);
  });

  it('never draws a view over the one that replaced it: a story answered after a sign-out stays off the sign-in page', async () => {
    // Prepare: the story's read held in the network until the test lets it go.
    const { reference } = await resolvedPayment();
    const page = await t.signedIn();
    const storyRead = `/v1/transactions/momo/open/${reference}`;
    let release: () => void = () => undefined;
    const held = new Promise<void>((asked) =>
      page.route(
        (url) => url.pathname === storyRead,
        (request) => {
          release = () => void request.continue();
          asked();
        },
      ),
    );

    // Act: the story opens and asks; the person signs out before it is answered; then the answer comes.
    await page.goto(`${t.relay.url}/console/#/tx/momo/open/${reference}`);
    await held;
    await page.getByRole('link', { name: 'Sign out' }).click();
    await page.getByTestId('signin').waitFor();
    release();
    // The story, answered, asks who is signed in: nobody, so the relay refuses and the banner says so. The
    // story would draw right after (its next step, in the same turn of the page's event loop).
    await page.locator('#banner[data-state=signed-out]').waitFor();

    // Assess: the sign-in page is still what the tab shows, and nobody is named as signed in.
    expect(await page.getByTestId('signin').isVisible()).toBe(true);
    expect(await page.getByTestId('story-title').count()).toBe(0);
    expect(await page.getByTestId('who').textContent()).toBe('');
  });

  it('exports the quarantine as CSV with the filters shown', async () => {
    // Prepare: a refused provider callback (a body that is not JSON) on the account; counted against the
    // account's entries before it, so that a retry of this test (which adds one more) still checks one.
    const before = await t.relay.admin('GET', '/v1/quarantine?account=open');
    expect(before.status).toBe(200);
    const reference = randomUUID();
    const registered = await t.relay.admin('POST', '/v1/transactions', {
      provider: 'momo',
      account: 'open',
      kind: 'requesttopay',
      reference,
      amount: '10',
      currency: 'EUR',
    });
    // The callback URL's path on this relay (its public base URL is the config's, not the test's port).
    const refused = await fetch(`${t.relay.url}${new URL(registered.body.callbackUrl).pathname}`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: '{"status": "SUCCESSFUL"',
    });
    expect(refused.status).toBeGreaterThanOrEqual(400);
    const page = await t.signedIn();

    // Act
    await page.goto(`${t.relay.url}/console/#/quarantine?account=open`);
    await page.getByTestId('quarantine-entry').first().waitFor();
    const file = await exported(page, 'quarantine-csv');

    // Assess: the CSV of the list as filtered: momo/open's refused callbacks, this one more than before.
    expect(file.name).toBe('relay-quarantine.csv');
    const [header, ...rows] = file.lines;
    expect(header).toContain('receivedAt');
    expect(rows).toHaveLength(before.body.entries.length + 1);
    for (const row of rows) {
      expect(row).toContain('momo');
      expect(row).toContain('open');
    }
  });
});
