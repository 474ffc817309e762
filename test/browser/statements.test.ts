/**
 * Issue 29 item 6 in a real Chromium on the real local relay (DynamoDB Local): an operator imports a
 * statement whose payment the relay never heard of; the Statements view lists the account's business day
 * with its match rate and the break, tells the break's story and links to the transaction the row opened.
 * A break that no longer holds is shown as such while the day is read, and retired only when an operator
 * closes the day: the view then lists it among the retired breaks with who, when and why.
 */
import { describe, expect, it } from 'vitest';
import { recordBalance } from '../../shared/app/statements/statement-sink';
import { ADMIN_HEADERS, silentLogger } from '../helpers/relay';
import { TEAM, useConsoleOnRelay } from './harness';

const t = useConsoleOnRelay(
  () => ({
    accounts: { daraja: { ke: { pathSecret: 'daraja-path-secret-0123', shortCode: '600638' } } },
  }),
  { ana: TEAM.ana },
);

const HEADER =
  'STORE_NAME,RECEIPT_NUMBER,ACCOUNT_TYPE_NAME,TRANSACTION_TYPE,START_TIMESTAMP,TRANSACTION_PARTY_DETAILS,CREDIT_AMOUNT,DEBIT_AMOUNT,BALANCE,LINKED_TRANSACTION_ID';

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
      HEADER,
      `Main Store,SKB0000001,Merchant Account,Pay Merchant,${stamp},254708374149 - JANE DOE,1500.00,0.00,1500.00,`,
    ].join('\n');
    const imported = await t.relay.request(
      'POST',
      '/v1/statements/daraja/ke/import?file=Mpesa_600638.csv',
      file,
      { ...ADMIN_HEADERS, 'content-type': 'text/csv' },
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

  it('shows a break that no longer holds as such while the day is read, and its retirement by the operator who closed the day', async () => {
    // Prepare: a day three days ago (its SLA passed) whose balance fell 15 between two snapshots with
    // nothing to explain it; a read stores the drift; then the charge that explains it is imported.
    const { day } = nairobi(new Date(Date.now() - 3 * 86_400_000));
    const deps = {
      config: t.relay.services.config,
      store: t.relay.store,
      statements: t.relay.statements,
      clock: t.relay.services.clock,
      log: silentLogger,
    };
    const snapshot = (hourUtc: string, balance: string) =>
      recordBalance(
        deps,
        {
          provider: 'daraja',
          account: 'ke',
          source: 'balance-api',
          at: `${day}T${hourUtc}:00:00.000Z`,
          balance,
          currency: 'KES',
        },
        { actor: { kind: 'system', name: 'balance-snapshot' } },
      );
    await snapshot('03', '1000');
    await snapshot('09', '985');
    const dayPath = `/v1/statements/daraja/ke/days/${day}`;
    const found = await t.relay.request('GET', dayPath, undefined, t.as('ana'));
    expect(found.body.breaks).toEqual([expect.objectContaining({ category: 'balance-drift', amount: '15' })]);
    const charge = `Main Store,SKC0000015,Merchant Account,Pay merchant Charge,${day} 11:00:00,,0.00,15.00,0,`;
    const imported = await t.relay.request(
      'POST',
      '/v1/statements/daraja/ke/import?file=Mpesa_600638_charges.csv',
      [HEADER, charge].join('\n'),
      { ...t.as('ana'), 'content-type': 'text/csv' },
    );
    expect(imported.status, JSON.stringify(imported.body)).toBe(200);
    const page = await t.signedIn('ana');

    // Act: ana opens the day (a read), then closes it.
    await page.goto(
      `${t.relay.url}/console/#/statements?${new URLSearchParams({ account: 'daraja/ke', day })}`,
    );
    const marked = page.getByTestId('no-longer-holds');
    await marked.waitFor();
    const whileRead = await marked.innerText();
    const afterTheRead = await t.relay.request('GET', dayPath, undefined, t.as('ana'));
    await page.getByTestId('close-day').click();
    const retiredRow = page.getByTestId('retired-row');
    await retiredRow.waitFor();

    // Assess: reading retired nothing; the close did, in ana's name, and the view says who, when and why.
    expect(whileRead).toContain('the interval adds up now');
    expect(afterTheRead.body.retired).toEqual([]);
    expect(afterTheRead.body.breaks).toHaveLength(1);
    expect(await retiredRow.getByTestId('retired-by').innerText()).toBe('ana');
    expect(await retiredRow.getByTestId('retired-at').innerText()).toMatch(
      /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}/,
    );
    expect(await retiredRow.getByTestId('retired-because').innerText()).toContain('the interval adds up now');
    expect(await retiredRow.innerText()).toMatch(/balance-drift\s+15\b/);
    await page.getByTestId('no-breaks').waitFor();
    const stored = await t.relay.request('GET', dayPath, undefined, t.as('ana'));
    expect(stored.body.retired).toEqual([
      expect.objectContaining({
        category: 'balance-drift',
        amount: '15',
        retiredBy: expect.objectContaining({ kind: 'person', name: 'ana' }),
      }),
    ]);
    await page.close();
  });
});
