/**
 * Stored data against the console, in a real Chromium on the real local relay (DynamoDB Local): markup,
 * `javascript:` URLs and `</script>` in every free-text field an outsider, a partner or an operator can
 * store — a refused callback's path and body, a provider's failure message and payer notes, a partner's
 * externalId and metadata, an operator's name (X-Relay-Actor) and notes — then every view of the console.
 * No injected element or script may exist or run in any view (a CSP violation counts: the page's policy
 * would block an injected handler, so one firing its report means markup got in); the injected text must
 * show as text where the view shows that field. The console's answers carry the security headers.
 * (CSV exports of the same strings are checked in test/unit/http/route-probes.test.ts.)
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../helpers/relay';
import { expiredPayment, TEAM, useConsoleOnRelay, viewSettled } from './harness';

/** Each marks what it injects with data-xss, so that an element that got in is found. */
const PAYLOADS = [
  '<img src=x data-xss onerror="window.__xss=1">',
  '"><svg data-xss onload="window.__xss=2">',
  '</script><script data-xss>window.__xss=3</script>',
  'javascript:window.__xss=4',
];
const PAYLOAD = PAYLOADS.join(' ');
/** A name X-Relay-Actor may give (64 characters at most). */
const ACTOR = '<img src=x data-xss onerror="window.__xss=5">';

const t = useConsoleOnRelay(
  () => ({
    management: { resolveLimits: { 'momo/open': '500' } },
    accounts: { momo: { open: { currency: 'EUR', confirmSuccess: false } } },
  }),
  TEAM,
);

const operator = { authorization: `Bearer ${ADMIN_TOKEN}`, 'x-relay-actor': ACTOR };

/** Stores the payloads wherever each party writes free text; answers the references it made. */
async function storeEverywhere(): Promise<{ failed: string; pending: string }> {
  const failed = randomUUID();
  const registered = await t.relay.request(
    'POST',
    '/v1/transactions',
    {
      provider: 'momo',
      account: 'open',
      kind: 'requesttopay',
      reference: failed,
      amount: '100',
      currency: 'EUR',
      externalId: PAYLOADS[0],
      metadata: { note: PAYLOAD, [PAYLOADS[1]!]: PAYLOADS[2] },
    },
    t.as('ana'),
  );
  const callback = await t.relay.request('PUT', `/v1/momo/open/requesttopay/${failed}`, {
    financialTransactionId: '363440463',
    externalId: PAYLOADS[0],
    amount: '100',
    currency: 'EUR',
    payer: { partyIdType: 'MSISDN', partyId: '46733123459' },
    payerMessage: PAYLOAD,
    payeeNote: PAYLOAD,
    status: 'FAILED',
    reason: { code: 'PAYER_NOT_FOUND', message: PAYLOAD },
  });
  const refused = await t.relay.request('PUT', `/v1/momo/open/requesttopay/${encodeURIComponent(PAYLOAD)}`, {
    status: PAYLOAD,
    reason: { message: PAYLOAD },
  });
  const entry = (await t.relay.admin('GET', '/v1/quarantine')).body.entries[0];
  const dismissed = await t.relay.request(
    'POST',
    `/v1/quarantine/${entry.id}/dismiss`,
    { receivedAt: entry.receivedAt, note: PAYLOAD },
    operator,
  );
  // Above the 500 limit: an approval that carries the operator's note (a named sign-in: four eyes are
  // refused to the shared token, so its typed name never reaches an approval).
  const pending = await expiredPayment(t, '600');
  const asked = await t.relay.request(
    'POST',
    `/v1/transactions/momo/open/${pending}/resolve`,
    { status: 'FAILED', note: PAYLOAD },
    t.as('ana'),
  );
  expect([registered.status, callback.status, refused.status, dismissed.status, asked.status]).toEqual([
    201, 200, 400, 200, 202,
  ]);
  return { failed, pending };
}

/** What got in on the page as it is: injected elements, script URLs, a handler that ran, CSP reports. */
async function injected(
  page: Page,
): Promise<{ elements: number; scriptUrls: number; ran: unknown; csp: string[] }> {
  return page.evaluate(`({
    elements: document.querySelectorAll('[data-xss]').length,
    scriptUrls: [...document.querySelectorAll('[href],[src],[action]')].filter((e) =>
      /^\\s*javascript:/i.test(e.getAttribute('href') ?? e.getAttribute('src') ?? e.getAttribute('action') ?? '')).length,
    ran: window.__xss ?? null,
    csp: window.__csp ?? [],
  })`);
}

describe('stored markup in every console view', () => {
  it('shows what senders, partners and operators stored as text in every view, and nothing of it runs', async () => {
    // Arrange
    const { failed, pending } = await storeEverywhere();
    const page = await t.newPage();
    await page.addInitScript(
      "window.__csp = []; document.addEventListener('securitypolicyviolation', (e) => window.__csp.push(e.violatedDirective + ' ' + e.blockedURI));",
    );
    await page.goto(`${t.relay.url}/console/`);
    await page.getByLabel('bearer token').fill(ADMIN_TOKEN);
    await page.getByLabel('your name').fill('ada');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: /Transactions/ }).waitFor();
    const views = [
      '#/transactions',
      `#/transactions?q=${encodeURIComponent(PAYLOADS[0]!)}`,
      `#/tx/momo/open/${failed}`,
      `#/tx/momo/open/${pending}`,
      `#/tx/momo/open/${encodeURIComponent(PAYLOAD)}`,
      '#/report',
      '#/health',
      '#/quarantine',
      '#/badges',
      '#/statements',
      '#/approvals',
      '#/audit',
      '#/destinations',
    ];

    // Act: every view, each checked as drawn.
    const found: Record<string, Awaited<ReturnType<typeof injected>>> = {};
    const text: Record<string, string> = {};
    for (const view of views) {
      await page.goto(`${t.relay.url}/console/${view}`);
      await viewSettled(page);
      found[view] = await injected(page);
      text[view] = await page.locator('#main').innerText();
    }

    // Assess: nothing got in anywhere; the stored text is shown as text where its field is.
    const clean = { elements: 0, scriptUrls: 0, ran: null, csp: [] };
    expect(found).toEqual(Object.fromEntries(views.map((v) => [v, clean])));
    expect(text[`#/tx/momo/open/${failed}`]).toContain(PAYLOADS[0]);
    expect(text['#/quarantine']).toContain('onerror');
    expect(text['#/approvals']).toContain(PAYLOADS[0]);
    expect(text['#/audit']).toContain(ACTOR);
  });

  it('answers the console page with a policy that allows no inline script, no framing and no sniffing', async () => {
    // Act
    const page = await t.newPage();
    const answer = await page.goto(`${t.relay.url}/console/`);
    const headers = answer!.headers();

    // Assess
    const csp = headers['content-security-policy'] ?? '';
    expect(csp).toMatch(/script-src 'self'(;|$)/);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("default-src 'none'");
    expect(headers['x-content-type-options']).toBe('nosniff');
  });
});
