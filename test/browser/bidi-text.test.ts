/**
 * Provider free text with its own direction, in a real Chromium on the real local relay: a MoMo failure
 * message carrying a right-to-left override and Arabic, and a partner's externalId in Hebrew. No view may
 * show a bidi control character as such (it would reorder the text beside it: "exe.gnp" read as
 * "png.exe"), and right-to-left text is isolated in a `<bdi>` so it cannot pull its neighbours into its
 * direction (console/dom.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../helpers/relay';
import { TEAM, useConsoleOnRelay, viewSettled } from './harness';

const MESSAGE = 'Payer \u202Eexe.gnp\u202C declined: تم رفض الدفع 42';
const EXTERNAL_ID = 'INV-שלום-7';

const t = useConsoleOnRelay(
  () => ({ accounts: { momo: { open: { currency: 'EUR', confirmSuccess: false } } } }),
  TEAM,
);

/** The text nodes under #main holding a bidi control, and those holding right-to-left letters outside a bdi. */
async function directionLeaks(page: Page): Promise<{ controls: string[]; unisolated: string[] }> {
  return page.evaluate(`(() => {
    const walker = document.createTreeWalker(document.getElementById('main'), NodeFilter.SHOW_TEXT);
    const controls = [], unisolated = [];
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      if (/\\p{Bidi_Control}/u.test(node.data)) controls.push(node.data);
      if (/[\\u0590-\\u08ff]/.test(node.data) && !node.parentElement.closest('bdi')) unisolated.push(node.data);
    }
    const titles = [...document.querySelectorAll('#main [title]')].map((e) => e.getAttribute('title'));
    return { controls: controls.concat(titles.filter((t) => /\\p{Bidi_Control}/u.test(t))), unisolated };
  })()`);
}

describe('provider text with its own direction in the console', () => {
  it('shows bidi controls as code points and isolates right-to-left text in the list and the story', async () => {
    // Prepare: a payment whose callback fails it with the message.
    const reference = randomUUID();
    const registered = await t.relay.request(
      'POST',
      '/v1/transactions',
      {
        provider: 'momo',
        account: 'open',
        kind: 'requesttopay',
        reference,
        amount: '100',
        currency: 'EUR',
        externalId: EXTERNAL_ID,
      },
      t.as('ana'),
    );
    const callback = await t.relay.request('PUT', `/v1/momo/open/requesttopay/${reference}`, {
      financialTransactionId: '363440463',
      externalId: EXTERNAL_ID,
      amount: '100',
      currency: 'EUR',
      payer: { partyIdType: 'MSISDN', partyId: '46733123459' },
      status: 'FAILED',
      reason: { code: 'PAYER_NOT_FOUND', message: MESSAGE },
    });
    expect([registered.status, callback.status]).toEqual([201, 200]);
    const page = await t.newPage();
    await page.goto(`${t.relay.url}/console/`);
    await page.getByLabel('bearer token').fill(ADMIN_TOKEN);
    await page.getByLabel('your name').fill('ada');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: /Transactions/ }).waitFor();

    // Act
    const seen: Record<string, { controls: string[]; unisolated: string[]; text: string }> = {};
    for (const view of ['#/transactions', `#/tx/momo/open/${reference}`]) {
      await page.goto(`${t.relay.url}/console/${view}`);
      await viewSettled(page);
      seen[view] = { ...(await directionLeaks(page)), text: await page.locator('#main').innerText() };
    }

    // Assess: the text is there, its override shown, its right-to-left parts isolated.
    const story = seen[`#/tx/momo/open/${reference}`]!;
    expect(story.text).toContain('Payer [U+202E]exe.gnp[U+202C] declined');
    expect(story.text).toContain(EXTERNAL_ID);
    for (const view of Object.values(seen)) expect(view).toMatchObject({ controls: [], unisolated: [] });
  });
});
