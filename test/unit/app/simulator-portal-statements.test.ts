import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { MemoryStatementStore } from '../../../shared/adapters/memory/statement-store';
import { importStatement } from '../../../shared/app/statements/import-statement';
import type { RelayLogger } from '../../../shared/app/ports';
import { parseConfig } from '../../../shared/config/load';
import type { TransactionRecord } from '../../../shared/domain/transaction';
import { Books } from '../../../simulator/core/books';
import { statementFile } from '../../../simulator/core/statements';
import { registered } from '../../helpers/reports';

/**
 * The simulator's MoMo- and Airtel-portal-like statement files (simulator/README.md#books-pulls-balances-statements)
 * read by the relay through the column templates docs/statements.md declares for them: each payment's row
 * matches the payment the relay knows, its charge row is linked to it, nothing is a break.
 */
const silent: RelayLogger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };
const config = parseConfig({
  management: { bearerToken: 'a-long-enough-token' },
  accounts: {
    momo: { demo: { pathSecret: 'momo-path-secret-0123' } },
    airtel: { demo: { callbackKey: 'airtel-callback-key-0123', country: 'UG', currency: 'UGX' } },
  },
  statements: {
    templates: {
      'sim-momo': {
        columns: {
          providerId: 'Id',
          externalId: 'External Transaction Id',
          time: 'Date',
          status: 'Status',
          kind: 'Type',
          amount: 'Amount',
          direction: 'Type',
          linkedProviderId: 'Related Transaction Id',
          balance: 'Balance',
        },
        timeFormat: 'ISO',
        kinds: { fee: ['fee'], reversal: ['refund'] },
        directions: { in: ['debit'], out: ['transfer', 'fee', 'refund'] },
      },
      'sim-airtel': {
        columns: {
          providerId: 'Partner Transaction ID',
          time: 'Transaction Date',
          status: 'Transaction Status',
          kind: 'Transaction Type',
          amountIn: 'Credit',
          amountOut: 'Debit',
          counterparty: 'MSISDN',
          linkedProviderId: 'Related Transaction ID',
          balance: 'Balance After',
        },
        timeFormat: 'DD/MM/YYYY HH:mm:ss',
        timeZone: 'Africa/Kampala',
        kinds: { fee: ['charge'], reversal: ['refund'] },
      },
    },
  },
});

const MOVED = Date.parse('2026-11-21T08:00:00.000Z');

function payment(provider: 'momo' | 'airtel', reference: string, currency: string): TransactionRecord {
  const at = new Date(MOVED + 5000).toISOString();
  return registered({
    key: { provider, account: 'demo', reference },
    kind: provider === 'momo' ? 'requesttopay' : 'payment',
    amount: { value: '1500', currency },
    status: 'SUCCEEDED',
    createdAt: new Date(MOVED - 60_000).toISOString(),
    transitions: [{ from: 'PENDING', to: 'SUCCEEDED', at, origin: 'callback', receiptId: 'r1' }],
  });
}

async function importFile(provider: 'momo' | 'airtel', text: string, store: MemoryStore) {
  const clock = { now: () => new Date('2026-11-21T12:00:00.000Z') };
  const statements = new MemoryStatementStore();
  const answer = await importStatement(
    { config, store, statements, clock, log: silent },
    {
      provider,
      account: 'demo',
      ref: `${provider}.csv`,
      template: `sim-${provider}`,
      actor: { kind: 'person', name: 'jane.doe' },
      open: () => [text],
    },
  );
  return { answer, breaks: await statements.listBreaks({ provider, account: 'demo', day: '2026-11-21' }) };
}

describe("the simulator's portal-like statement files, read through their documented templates", () => {
  it('MoMo: the collection matches its payment by externalId, its fee row is linked', async () => {
    // Prepare: the simulator moved 1500 EUR into the collection wallet and charged a 1 % fee.
    const books = new Books();
    books.setFaults({ feePercent: 1 });
    books.record({
      ...{
        provider: 'momo',
        account: 'api-user',
        subAccount: 'collection',
        id: 'FT1001',
        externalId: 'ref-1',
      },
      ...{ time: MOVED, kind: 'payment', amountIn: 1500, amountOut: 0, counterparty: '256772123456' },
      ...{ description: 'requesttopay', currency: 'EUR' },
    });
    const file = statementFile(books, {
      ...{ provider: 'momo', account: 'api-user', subAccount: 'collection', layout: 'momo' },
      ...{ from: 0, to: MOVED + 86_400_000, now: MOVED + 3_600_000 },
    });
    const store = new MemoryStore({ now: () => new Date('2026-11-21T12:00:00.000Z') });
    await store.createTransaction(payment('momo', 'ref-1', 'EUR'));

    // Act
    const { answer, breaks } = await importFile('momo', file.text, store);

    // Assess
    expect(answer.result).toMatchObject({ rows: 2, matched: 1, feesLinked: 1, opened: 0, breaks: 0 });
    expect(breaks).toEqual([]);
  });

  it('Airtel: the payment matches by the partner transaction id, its charge row is linked', async () => {
    // Prepare
    const books = new Books();
    books.setFaults({ feePercent: 1 });
    books.record({
      ...{ provider: 'airtel', account: 'client-id', id: 'AM1001', externalId: 'air-ref-1', time: MOVED },
      ...{ kind: 'payment', amountIn: 1500, amountOut: 0, counterparty: '256752123456' },
      ...{ description: 'Merchant Payment', currency: 'UGX' },
    });
    const file = statementFile(books, {
      ...{ provider: 'airtel', account: 'client-id', layout: 'airtel' },
      ...{ from: 0, to: MOVED + 86_400_000, now: MOVED + 3_600_000 },
    });
    const store = new MemoryStore({ now: () => new Date('2026-11-21T12:00:00.000Z') });
    await store.createTransaction(payment('airtel', 'air-ref-1', 'UGX'));

    // Act
    const { answer, breaks } = await importFile('airtel', file.text, store);

    // Assess
    expect(answer.result).toMatchObject({ rows: 2, matched: 1, feesLinked: 1, opened: 0, breaks: 0 });
    expect(breaks).toEqual([]);
  });
});
