/**
 * Issue 29 item 6 in a real Chromium on the real local relay (DynamoDB Local): an operator imports a
 * statement whose payment the relay never heard of; the Statements view lists the account's business day
 * with its match rate and the break, tells the break's story and links to the transaction the row opened.
 */
import { describe, expect, it } from 'vitest';
import { ADMIN_TOKEN } from '../helpers/relay';
import { useConsoleOnRelay } from './harness';

const t = useConsoleOnRelay('statements', () => ({
  accounts: { daraja: { ke: { pathSecret: 'daraja-path-secret-0123', shortCode: '600638' } } },
}));

/** Nairobi's wall clock (UTC+3, no summer time) as the merchant export writes it, and its day. */
function nairobi(date: Date): { stamp: string; day: string } {
  const local = new Date(date.getTime() + 3 * 3600_000).toISOString();
  return { stamp: `${local.slice(0, 10)} ${local.slice(11, 19)}`, day: local.slice(0, 10) };
}

describe('the Statements view in a real Chromium', () => {
  it('shows an imported day with its match rate and the break, whose story links to the transaction', async () => {
    // Prepare: a statement with a payment the relay never heard of (its confirmation never came).
    const { stamp, day } = nairobi(new Date(Date.now() - 60_000));
    const file = [
      'STORE_NAME,RECEIPT_NUMBER,ACCOUNT_TYPE_NAME,TRANSACTION_TYPE,START_TIMESTAMP,TRANSACTION_PARTY_DETAILS,CREDIT_AMOUNT,DEBIT_AMOUNT,BALANCE,LINKED_TRANSACTION_ID',
      `Main Store,SKB0000001,Merchant Account,Pay Merchant,${stamp},254708374149 - JANE DOE,1500.00,0.00,1500.00,`,
    ].join('\n');
    const imported = await t.relay.request(
      'POST',
      '/v1/statements/daraja/ke/import?file=Mpesa_600638.csv',
      file,
      { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'text/csv' },
    );
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    expect(imported.body.result).toMatchObject({ opened: 1, breaks: 1 });
    const page = await t.signedIn();

    // Act: the nav entry, the account, then the day.
    await page.getByRole('link', { name: 'Statements' }).click();
    await page.getByLabel('statement account').fill('daraja/ke');
    await page.getByRole('button', { name: 'Show days' }).click();
    // The row whose day is this one (other rows may show today's date as the time they were closed).
    const row = page
      .getByTestId('day-row')
      .filter({ has: page.getByRole('link', { name: day, exact: true }) });
    await row.waitFor();
    const listed = await row.innerText();
    await row.getByRole('link', { name: day }).click();
    const breakRow = page.getByTestId('break-row');
    await breakRow.waitFor();

    // Assess: the day (one payment, 0 matched of 1 to match, one break) and the break's story.
    expect(listed).toMatch(/open\s+1\s+0\s+0\s+0\s+1\s+0\.0 %/);
    expect(await page.getByTestId('day-summary').innerText()).toContain('match rate 0.0 % (0 of 1)');
    const story = await breakRow.innerText();
    expect(story).toContain('missing-in-relay');
    expect(story).toContain('no callback ever came');
    expect(story).toContain('seen in Mpesa_600638.csv line 2');
    expect(story).not.toContain('254708374149');
    await breakRow.getByRole('link', { name: 'SKB0000001' }).click();
    await page.waitForURL(/#\/tx\/daraja\/ke\/SKB0000001$/);
    await page.getByText('TransactionSucceeded').first().waitFor();
    await page.close();
  });
});
