import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { MemoryStatementStore } from '../../../shared/adapters/memory/statement-store';
import { closeDay, closeCsv } from '../../../shared/app/statements/close-day';
import { importStatement } from '../../../shared/app/statements/import-statement';
import { StatementLedger, recordBalance } from '../../../shared/app/statements/statement-sink';
import type { RelayLogger } from '../../../shared/app/ports';
import { parseConfig } from '../../../shared/config/load';
import { StatementFileError } from '../../../shared/domain/errors';
import type { StatementRow } from '../../../shared/domain/statement';
import type { TransactionRecord } from '../../../shared/domain/transaction';
import { registered } from '../../helpers/reports';

const silent: RelayLogger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

const config = parseConfig({
  management: { bearerToken: 'a-long-enough-token' },
  reconciliation: { windowSeconds: 3600 },
  accounts: {
    daraja: { ke: { pathSecret: 'daraja-path-secret-0123', shortCode: '600638' } },
    momo: { demo: { pathSecret: 'momo-path-secret-0123' } },
  },
  statements: {
    accounts: { 'daraja/ke': { amountTolerance: '0' } },
    templates: {
      'momo-portal': {
        columns: {
          providerId: 'Transaction ID',
          externalId: 'Partner Transaction ID',
          time: 'Datestamp',
          amount: 'Amount',
          fee: 'Fee_Amount',
          status: 'Transaction_Status',
          counterparty: 'From_MSISDN',
        },
        timeFormat: 'DD/MM/YYYY HH:mm:ss',
        timeZone: 'Africa/Kampala',
        currency: 'UGX',
      },
      // Unsigned amounts: a Dr/Cr column says in or out.
      'airtel-portal': {
        columns: {
          providerId: 'TXN ID',
          time: 'TXN Date',
          amount: 'Amount',
          direction: 'Dr/Cr',
          counterparty: 'Sender MSISDN',
        },
        timeFormat: 'DD-MM-YYYY HH:mm:ss',
        timeZone: 'Africa/Kampala',
        currency: 'UGX',
        directions: { in: ['CR'], out: ['DR'] },
      },
      // Unsigned amounts: the type column says in or out (and what a row is).
      'momo-typed': {
        columns: {
          providerId: 'Id',
          time: 'Date',
          amount: 'Amount',
          direction: 'Type',
          kind: 'Type',
        },
        timeFormat: 'YYYY-MM-DD HH:mm:ss',
        timeZone: 'Africa/Kampala',
        currency: 'UGX',
        kinds: { fee: ['fee'] },
        directions: { in: ['payment received', 'cash in'], out: ['transfer sent', 'fee'] },
      },
    },
  },
});

const JANE = {
  id: 'jane.doe',
  name: 'jane.doe',
  email: null,
  role: 'operator' as const,
  via: 'token' as const,
};
const OPERATOR = { kind: 'person' as const, name: 'jane.doe', ref: JANE };

function setup(now = '2026-11-21T12:00:00.000Z', relayConfig = config) {
  let current = now;
  const clock = { now: () => new Date(current) };
  const store = new MemoryStore(clock);
  const statements = new MemoryStatementStore();
  const deps = { config: relayConfig, store, statements, clock, log: silent };
  return {
    deps,
    store,
    statements,
    at: (iso: string) => {
      current = iso;
    },
    types: () => store.published.map((e) => e.metadata.type),
    importText: (
      text: string,
      extra: { template?: string; dryRun?: boolean; account?: string; provider?: string } = {},
    ) =>
      importStatement(deps, {
        provider: extra.provider ?? 'daraja',
        account: extra.account ?? 'ke',
        ref: 'statement.csv',
        actor: OPERATOR,
        open: () => [text],
        ...(extra.template ? { template: extra.template } : {}),
        ...(extra.dryRun ? { dryRun: true } : {}),
      }),
  };
}

function c2b(reference: string, overrides: Partial<TransactionRecord> = {}): TransactionRecord {
  return registered({
    key: { provider: 'daraja', account: 'ke', reference },
    kind: 'c2b',
    amount: { value: '1500', currency: 'KES' },
    externalId: undefined,
    createdAt: '2026-11-21T06:00:00.000Z',
    ...overrides,
  });
}

const succeeded = (
  reference: string,
  at = '2026-11-21T06:00:05.000Z',
  overrides: Partial<TransactionRecord> = {},
) =>
  c2b(reference, {
    status: 'SUCCEEDED',
    providerTransactionId: reference,
    transitions: [{ from: 'PENDING', to: 'SUCCEEDED', at, origin: 'callback', receiptId: 'r1' }],
    evidence: [
      {
        source: 'callback',
        claim: 'SUCCEEDED',
        authenticated: true,
        authentication: ['path-secret', 'source-ip'],
        conclusive: true,
        at,
        providerCode: '0',
        description: null,
        amount: { value: '1500', currency: 'KES' },
        receiptId: 'r1',
      },
    ],
    ...overrides,
  });

/** The older paybill statement: a preamble, then the header row; times are Nairobi's. */
const PAYBILL = [
  'Organization Name:,Demo Ltd',
  'Time Period:,21-11-2026 - 21-11-2026',
  '',
  'Receipt No.,Completion Time,Initiation Time,Details,Transaction Status,Paid In,Withdrawn,Balance,Balance Confirmed,Reason Type,Other Party Info,Linked Transaction ID,A/C No.',
  'SKL1AB2CD3,2026-11-21 09:00:05,2026-11-21 09:00:04,Pay Bill from 254708374149 - JANE DOE Acc. INV-1,Completed,"1,500.00",,"101,500.00",true,Pay Bill,254708374149 - JANE DOE,,INV-1',
  'SKL1AB2CD4,2026-11-21 09:10:00,2026-11-21 09:10:00,Pay Bill Charge,Completed,,-15.00,"101,485.00",true,Pay Bill Charge,,SKL1AB2CD3,',
].join('\r\n');

/** The current merchant export: charges as their own rows, the daily sweep is no payment. */
const MERCHANT = [
  'STORE_NAME,RECEIPT_NUMBER,ACCOUNT_TYPE_NAME,TRANSACTION_TYPE,START_TIMESTAMP,TRANSACTION_PARTY_DETAILS,CREDIT_AMOUNT,DEBIT_AMOUNT,BALANCE,LINKED_TRANSACTION_ID',
  'Main Store,SKM9XY1,Merchant Account,Pay Merchant,2026-11-21 10:00:00,254708374149 - JANE DOE,1500.00,0.00,1500.00,',
  'Main Store,SKM9XY2,Merchant Account,Pay merchant Charge,2026-11-21 10:00:00,,0.00,7.50,1492.50,SKM9XY1',
  'Main Store,SKM9XY3,Merchant Account,Merchant Account to Organization Settlement Account,2026-11-21 23:00:00,,0.00,1492.50,0.00,',
].join('\n');

describe('statement files', () => {
  it('reads the older paybill statement past its preamble, links the charge to its payment and masks the payer', async () => {
    // Prepare
    const t = setup();
    await t.store.createTransaction(succeeded('SKL1AB2CD3'));
    // Act
    const answer = await t.importText(PAYBILL);
    // Assess
    expect(answer.layout).toBe('mpesa-paybill');
    expect(answer.result).toMatchObject({ rows: 2, matched: 1, feesLinked: 1, breaks: 0, conflicts: 0 });
    const rows = await t.statements.listRows({ provider: 'daraja', account: 'ke', day: '2026-11-21' });
    const payment = rows.find((r) => r.kind === 'payment')!;
    expect(payment).toMatchObject({
      time: '2026-11-21T06:00:05.000Z',
      amountIn: '1500',
      externalId: 'INV-1',
    });
    expect(payment.counterparty).not.toContain('254708374149');
    expect(rows.find((r) => r.kind === 'fee')).toMatchObject({
      amountOut: '15',
      reference: 'SKL1AB2CD3',
      effect: 'fee-linked',
    });
  });

  it('reads the merchant export: payment matched, charge linked, the sweep counted as no payment', async () => {
    // Prepare
    const t = setup();
    await t.store.createTransaction(succeeded('SKM9XY1'));
    // Act
    const answer = await t.importText(MERCHANT);
    // Assess
    expect(answer.layout).toBe('mpesa-merchant');
    expect(answer.result).toMatchObject({ rows: 3, matched: 1, feesLinked: 1, breaks: 0 });
    const effects = (
      await t.statements.listRows({ provider: 'daraja', account: 'ke', day: '2026-11-21' })
    ).map((r) => [r.providerId, r.effect]);
    expect(effects).toEqual([
      ['SKM9XY1', 'matched'],
      ['SKM9XY2', 'fee-linked'],
      ['SKM9XY3', 'not-a-payment'],
    ]);
  });

  it('reads any other file through a declarative column template (time zone, signed amount, fee)', async () => {
    // Prepare
    const t = setup();
    const file = [
      'Datestamp,Transaction ID,Partner Transaction ID,Transaction_Type,Transaction_Status,From_MSISDN,Amount,Fee_Amount',
      '21/11/2026 14:30:00,9876543210,order-77,DEBIT,SUCCESSFUL,256772123456,25000,500',
    ].join('\n');
    // Act
    const answer = await t.importText(file, { provider: 'momo', account: 'demo', template: 'momo-portal' });
    // Assess: no registration carries order-77, so the row is money the relay never heard of.
    expect(answer.layout).toBe('momo-portal');
    expect(answer.result).toMatchObject({ rows: 1, breaks: 1, opened: 0 });
    const [row] = await t.statements.listRows({ provider: 'momo', account: 'demo', day: '2026-11-21' });
    expect(row).toMatchObject({
      time: '2026-11-21T11:30:00.000Z',
      amountIn: '25000',
      fee: '500',
      currency: 'UGX',
    });
    const [found] = await t.statements.listBreaks({ provider: 'momo', account: 'demo', day: '2026-11-21' });
    expect(found).toMatchObject({ category: 'missing-in-relay', providerId: '9876543210', amount: '25000' });
  });

  it('reads a portal file with unsigned amounts: its Dr/Cr column decides money in or out', async () => {
    // Prepare
    const t = setup();
    const file = [
      'TXN ID,TXN Date,Sender MSISDN,Amount,Dr/Cr',
      'AP1000001,21-11-2026 09:00:00,256752123456,25000,CR',
      'AP1000002,21-11-2026 10:00:00,256752123457,4000, dr ',
    ].join('\n');
    // Act
    const answer = await t.importText(file, { provider: 'momo', account: 'demo', template: 'airtel-portal' });
    // Assess
    expect(answer.result).toMatchObject({ rows: 2 });
    const rows = await t.statements.listRows({ provider: 'momo', account: 'demo', day: '2026-11-21' });
    expect(rows.map((r) => [r.providerId, r.amountIn, r.amountOut, r.kind])).toEqual([
      ['AP1000001', '25000', '0', 'payment'],
      ['AP1000002', '0', '4000', 'payment'],
    ]);
  });

  it('lets a type column decide in or out of unsigned amounts, and refuses a row whose type says neither, naming its line', async () => {
    // Prepare
    const t = setup();
    const header = 'Id,Date,Type,Amount';
    const good = [
      header,
      '9000001,2026-11-21 09:00:00,Payment Received,15000',
      '9000002,2026-11-21 09:05:00,Transfer Sent,7000',
      '9000003,2026-11-21 09:05:00,Transfer Fee,70',
    ].join('\n');
    const bad = `${good}\n9000004,2026-11-21 09:10:00,Adjustment,100`;
    // Act
    const refused = await t
      .importText(bad, { provider: 'momo', account: 'demo', template: 'momo-typed' })
      .catch((e: unknown) => e);
    const rowsAfterRefusal = await t.statements.listRows({
      provider: 'momo',
      account: 'demo',
      day: '2026-11-21',
    });
    await t.importText(good, { provider: 'momo', account: 'demo', template: 'momo-typed' });
    // Assess
    expect(refused).toBeInstanceOf(StatementFileError);
    expect((refused as StatementFileError).details).toEqual({ line: 5, column: 'Type' });
    expect((refused as Error).message).toContain('"adjustment" says neither in');
    expect(rowsAfterRefusal).toEqual([]);
    const rows = await t.statements.listRows({ provider: 'momo', account: 'demo', day: '2026-11-21' });
    expect(rows.map((r) => [r.providerId, r.amountIn, r.amountOut, r.kind])).toEqual([
      ['9000001', '15000', '0', 'payment'],
      ['9000002', '0', '7000', 'payment'],
      ['9000003', '0', '70', 'fee'],
    ]);
  });

  it('refuses a template whose direction column has no words for in and out, or no amount column', () => {
    // Prepare
    const columns = { providerId: 'Id', time: 'Date', amount: 'Amount', direction: 'Dr/Cr' };
    const template = (t: Record<string, unknown>) => () =>
      parseConfig({
        management: { bearerToken: 'a-long-enough-token' },
        statements: { templates: { portal: { timeFormat: 'ISO', ...t } } },
      });
    // Act / Assess
    expect(template({ columns })).toThrow(/columns.direction and directions go together/);
    expect(
      template({
        columns: { providerId: 'Id', time: 'Date', direction: 'Dr/Cr' },
        directions: { in: ['CR'], out: ['DR'] },
      }),
    ).toThrow(/name the amount column/);
    expect(template({ columns, directions: { in: ['CR'], out: ['DR'] } })).not.toThrow();
  });

  it('refuses a malformed file naming the line and the column, and imports nothing of it', async () => {
    // Prepare
    const t = setup();
    await t.store.createTransaction(c2b('SKM9XY1'));
    const bad = `${MERCHANT}\nMain Store,SKM9XY4,Merchant Account,Pay Merchant,2026-11-21 10:05:00,x,12O.00,0.00,0,`;
    // Act
    const refused = await t.importText(bad).catch((e: unknown) => e);
    // Assess
    expect(refused).toBeInstanceOf(StatementFileError);
    expect((refused as StatementFileError).details).toEqual({ line: 5, column: 'CREDIT_AMOUNT' });
    expect((refused as Error).message).toContain('Line 5, column "CREDIT_AMOUNT"');
    expect(await t.statements.listRows({ provider: 'daraja', account: 'ke', day: '2026-11-21' })).toEqual([]);
    expect((await t.store.getTransaction(c2b('SKM9XY1').key))?.status).toBe('PENDING');
  });

  it('refuses an unclosed quote with its line', async () => {
    // Prepare
    const t = setup();
    // Act
    const refused = await t.importText(`${MERCHANT}\nMain Store,"SKM9XY5,Merchant`).catch((e: unknown) => e);
    // Assess
    expect(refused).toBeInstanceOf(StatementFileError);
    expect((refused as StatementFileError).details).toEqual({ line: 5 });
  });

  it('changes nothing when the same or an overlapping file is imported again, and a dry run writes nothing', async () => {
    // Prepare
    const t = setup();
    await t.store.createTransaction(c2b('SKM9XY1'));
    const dry = await t.importText(MERCHANT, { dryRun: true });
    const afterDry = await t.statements.listRows({ provider: 'daraja', account: 'ke', day: '2026-11-21' });
    const first = await t.importText(MERCHANT);
    const events = t.types();
    // Act
    const again = await t.importText(MERCHANT);
    const overlapping = await t.importText(
      `${MERCHANT.split('\n').slice(0, 2).join('\n')}\nMain Store,SKM9XY6,Merchant Account,Pay Merchant,2026-11-21 11:00:00,x,200.00,0.00,1700.00,`,
    );
    // Assess
    expect(dry.result).toMatchObject({ rows: 3, settled: 1 });
    expect(afterDry).toEqual([]);
    expect(first.result).toMatchObject({ rows: 3, settled: 1 });
    expect(again.result).toMatchObject({ rows: 3, alreadyKnown: 3, settled: 0, breaks: 0 });
    expect(overlapping.result).toMatchObject({ rows: 2, alreadyKnown: 1, opened: 1 });
    expect(t.types().slice(0, events.length)).toEqual(events);
    expect(t.types().filter((type) => type === 'TransactionSucceeded')).toHaveLength(2);
  });
});

function row(overrides: Partial<StatementRow> = {}): StatementRow {
  return {
    provider: 'daraja',
    account: 'ke',
    source: 'pull-api',
    providerId: 'SKP0000001',
    time: '2026-11-21T07:00:00.000Z',
    amountIn: '1500',
    amountOut: '0',
    kind: 'payment',
    origin: { ref: 'pull 2026-11-21T05:00/07:00', row: 1 },
    ...overrides,
  };
}

const SYSTEM = { actor: { kind: 'system' as const, name: 'pull' } };

describe('a statement row is evidence through the one decision', () => {
  it('a row contradicting a final verdict is a TransactionConflict and a status-mismatch break; the verdict stays', async () => {
    // Prepare
    const t = setup();
    await t.store.createTransaction(
      c2b('SKP0000001', {
        status: 'FAILED',
        transitions: [
          {
            from: 'PENDING',
            to: 'FAILED',
            at: '2026-11-21T06:59:00.000Z',
            origin: 'poll',
            receiptId: undefined,
          },
        ],
        evidence: [
          {
            source: 'status-api',
            claim: 'FAILED',
            authenticated: true,
            authentication: ['status-api'],
            conclusive: true,
            at: '2026-11-21T06:59:00.000Z',
            providerCode: '1032',
            description: null,
            amount: null,
            receiptId: null,
          },
        ],
      }),
    );
    // Act
    const result = await new StatementLedger(t.deps).ingestRows([row()], SYSTEM);
    // Assess
    const tx = await t.store.getTransaction({ provider: 'daraja', account: 'ke', reference: 'SKP0000001' });
    expect(tx?.status).toBe('FAILED');
    expect(result).toMatchObject({ conflicts: 1, settled: 0, breaks: 1 });
    const conflict = t.store.published.find((e) => e.metadata.type === 'TransactionConflict')!;
    // The relay's own pull: origin poll (the contract's list); the evidence names the statement.
    expect(conflict.metadata.origin).toBe('poll');
    expect(
      (conflict.data as { conflict: { evidence: { source: string }[] } }).conflict.evidence.map(
        (e) => e.source,
      ),
    ).toEqual(['status-api', 'statement']);
    const [found] = await t.statements.listBreaks({ provider: 'daraja', account: 'ke', day: '2026-11-21' });
    expect(found).toMatchObject({ category: 'status-mismatch', expected: 'FAILED', actual: 'SUCCEEDED' });
  });

  it('a row settles an AMBIGUOUS transaction, flagged as settled by the statement and naming the uploader', async () => {
    // Prepare
    const t = setup();
    await t.store.createTransaction(
      c2b('SKP0000001', {
        status: 'AMBIGUOUS',
        transitions: [
          {
            from: 'PENDING',
            to: 'AMBIGUOUS',
            at: '2026-11-21T06:00:00.000Z',
            origin: 'callback',
            receiptId: 'r0',
          },
        ],
      }),
    );
    // Act
    const result = await new StatementLedger(t.deps).ingestRows([row({ source: 'statement-file' })], {
      actor: OPERATOR,
    });
    // Assess
    expect(result).toMatchObject({ settled: 1, conflicts: 0 });
    const event = t.store.published.find((e) => e.metadata.type === 'TransactionSucceeded')!;
    // A file a person uploaded: origin manual (the contract's list); the evidence names the statement.
    expect(event.metadata.origin).toBe('manual');
    expect(event.data).toMatchObject({
      settledByStatement: { source: 'statement-file', actor: 'jane.doe' },
    });
    const evidence = (
      event.data as { evidence: { source: string; authentication: string[]; actor?: unknown }[] }
    ).evidence.at(-1);
    expect(evidence).toMatchObject({ source: 'statement', authentication: ['operator'], actor: JANE });
  });

  it('a row settles an EXPIRED transaction as a late resolution', async () => {
    // Prepare
    const t = setup();
    await t.store.createTransaction(
      c2b('SKP0000001', {
        status: 'EXPIRED',
        transitions: [
          {
            from: 'PENDING',
            to: 'EXPIRED',
            at: '2026-11-21T06:30:00.000Z',
            origin: 'poll',
            receiptId: undefined,
          },
        ],
      }),
    );
    // Act
    await new StatementLedger(t.deps).ingestRows([row()], SYSTEM);
    // Assess
    const event = t.store.published.find((e) => e.metadata.type === 'TransactionSucceeded')!;
    expect(event.data).toMatchObject({
      lateResolution: true,
      settledByStatement: { source: 'pull-api', actor: 'system' },
    });
    expect(
      (await t.statements.listRows({ provider: 'daraja', account: 'ke', day: '2026-11-21' }))[0]?.effect,
    ).toBe('settled');
  });

  it('a C2B row with no transaction opens one, published once with the statement as its evidence', async () => {
    // Prepare
    const t = setup();
    const ledger = new StatementLedger(t.deps);
    // Act
    const first = await ledger.ingestRows([row()], SYSTEM);
    const again = await ledger.ingestRows([row({ origin: { ref: 'another pull', row: 4 } })], SYSTEM);
    // Assess
    expect(first).toMatchObject({ opened: 1, breaks: 1 });
    expect(again).toMatchObject({ alreadyKnown: 1, opened: 0 });
    expect(t.types()).toEqual(['TransactionSucceeded']);
    const tx = await t.store.getTransaction({ provider: 'daraja', account: 'ke', reference: 'SKP0000001' });
    expect(tx).toMatchObject({
      kind: 'c2b',
      status: 'SUCCEEDED',
      registered: false,
      amount: { value: '1500' },
    });
    expect(tx?.evidence?.map((e) => [e.source, e.authentication])).toEqual([['statement', ['provider-api']]]);
    const [found] = await t.statements.listBreaks({ provider: 'daraja', account: 'ke', day: '2026-11-21' });
    expect(found).toMatchObject({ category: 'missing-in-relay', resolution: 'opened' });
  });

  it('an amount outside the tolerance is an amount-under break and never a success', async () => {
    // Prepare
    const t = setup();
    await t.store.createTransaction(c2b('SKP0000001'));
    // Act
    const result = await new StatementLedger(t.deps).ingestRows([row({ amountIn: '1450' })], SYSTEM);
    // Assess
    expect(result.breaks).toBe(1);
    expect((await t.store.getTransaction(c2b('SKP0000001').key))?.status).not.toBe('SUCCEEDED');
    const [found] = await t.statements.listBreaks({ provider: 'daraja', account: 'ke', day: '2026-11-21' });
    expect(found).toMatchObject({ category: 'amount-under', amount: '50', expected: '1500', actual: '1450' });
  });

  it('a reversal row of a payment the relay published as SUCCEEDED is a status-mismatch break', async () => {
    // Prepare
    const t = setup();
    await t.store.createTransaction(succeeded('SKP0000001'));
    // Act
    await new StatementLedger(t.deps).ingestRows(
      [
        row({
          providerId: 'SKR0000009',
          kind: 'reversal',
          amountIn: '0',
          amountOut: '1500',
          linkedProviderId: 'SKP0000001',
        }),
      ],
      SYSTEM,
    );
    // Assess
    const [found] = await t.statements.listBreaks({ provider: 'daraja', account: 'ke', day: '2026-11-21' });
    expect(found).toMatchObject({ category: 'status-mismatch', reference: 'SKP0000001', actual: 'REVERSED' });
    expect((await t.store.getTransaction(c2b('SKP0000001').key))?.status).toBe('SUCCEEDED');
  });

  it('a row changed since its first import is a row-changed break; the first stands', async () => {
    // Prepare
    const t = setup();
    const ledger = new StatementLedger(t.deps);
    await t.store.createTransaction(succeeded('SKP0000001'));
    await ledger.ingestRows([row()], SYSTEM);
    // Act
    const result = await ledger.ingestRows([row({ amountIn: '15000' })], SYSTEM);
    // Assess
    expect(result).toMatchObject({ breaks: 1, matched: 0 });
    const [stored] = await t.statements.listRows({ provider: 'daraja', account: 'ke', day: '2026-11-21' });
    expect(stored?.amountIn).toBe('1500');
  });

  it('puts an after-hours row on the next business day when the account has a cut-off', async () => {
    // Prepare
    const late = parseConfig({
      management: { bearerToken: 'a-long-enough-token' },
      accounts: { daraja: { ke: { pathSecret: 'daraja-path-secret-0123', shortCode: '600638' } } },
      statements: { accounts: { 'daraja/ke': { cutoff: '18:00' } } },
    });
    const t = setup();
    const ledger = new StatementLedger({ ...t.deps, config: late });
    // Act: 19:30 in Nairobi on the 21st.
    await ledger.ingestRows([row({ time: '2026-11-21T16:30:00.000Z' })], SYSTEM);
    // Assess
    expect(
      await t.statements.listRows({ provider: 'daraja', account: 'ke', day: '2026-11-22' }),
    ).toHaveLength(1);
  });
});

/** The same relay with a four-eyes limit of 1,000 on daraja/ke (docs/roles-and-audit.md#four-eyes). */
const limited = parseConfig({
  management: { bearerToken: 'a-long-enough-token', resolveLimits: { 'daraja/ke': '1000' } },
  reconciliation: { windowSeconds: 3600 },
  accounts: { daraja: { ke: { pathSecret: 'daraja-path-secret-0123', shortCode: '600638' } } },
  statements: { accounts: { 'daraja/ke': { amountTolerance: '0' } } },
});

describe('four eyes over statement files', () => {
  it('holds a file row above the limit as a claim: AMBIGUOUS for the status API or a second person, never settled by one upload', async () => {
    // Prepare: a registered 1,500 KES payment, PENDING; one operator uploads a file saying it was paid.
    const t = setup(undefined, limited);
    await t.store.createTransaction(c2b('SKP0000001'));
    // Act
    const result = await new StatementLedger(t.deps).ingestRows([row({ source: 'statement-file' })], {
      actor: OPERATOR,
    });
    // Assess
    expect(result).toMatchObject({ settled: 0, heldAboveLimit: 1 });
    const tx = await t.store.getTransaction({ provider: 'daraja', account: 'ke', reference: 'SKP0000001' });
    expect(tx).toMatchObject({ status: 'AMBIGUOUS', reason: { code: 'UNCONFIRMED' } });
    expect(tx?.reason?.message).toMatch(/above the four-eyes limit 1000/);
    expect(tx?.evidence?.at(-1)).toMatchObject({ source: 'statement', conclusive: false, actor: JANE });
    expect(tx?.reconcile?.dueAt).toBe('2026-11-21T12:00:00.000Z');
    expect(t.types()).not.toContain('TransactionSucceeded');
  });

  it('holds a file row above the limit that would open a payment nobody registered', async () => {
    // Prepare
    const t = setup(undefined, limited);
    // Act
    const result = await new StatementLedger(t.deps).ingestRows([row({ source: 'statement-file' })], {
      actor: OPERATOR,
    });
    // Assess: the payment is known (the break says the row opened it), but only as a claim.
    expect(result).toMatchObject({ opened: 1, heldAboveLimit: 1 });
    const tx = await t.store.getTransaction({ provider: 'daraja', account: 'ke', reference: 'SKP0000001' });
    expect(tx?.status).toBe('AMBIGUOUS');
    expect(t.types()).not.toContain('TransactionSucceeded');
  });

  it('holds a file row above the limit saying FAILED: the payment stays open, due for its status check', async () => {
    // Prepare
    const t = setup(undefined, limited);
    await t.store.createTransaction(c2b('SKP0000001'));
    // Act
    await new StatementLedger(t.deps).ingestRows([row({ source: 'statement-file', status: 'FAILED' })], {
      actor: OPERATOR,
    });
    // Assess
    const tx = await t.store.getTransaction({ provider: 'daraja', account: 'ke', reference: 'SKP0000001' });
    expect(tx?.status).not.toBe('FAILED');
    expect(t.types()).not.toContain('TransactionFailed');
  });

  it("settles as before below the limit, and from the provider's own pull whatever the amount", async () => {
    // Prepare
    const small = setup(undefined, limited);
    await small.store.createTransaction(c2b('SKP0000001', { amount: { value: '900', currency: 'KES' } }));
    const pulled = setup(undefined, limited);
    await pulled.store.createTransaction(c2b('SKP0000001'));
    // Act
    const fromFile = await new StatementLedger(small.deps).ingestRows(
      [row({ source: 'statement-file', amountIn: '900' })],
      { actor: OPERATOR },
    );
    const fromPull = await new StatementLedger(pulled.deps).ingestRows([row()], SYSTEM);
    // Assess
    expect(fromFile).toMatchObject({ settled: 1, heldAboveLimit: 0 });
    expect(fromPull).toMatchObject({ settled: 1, heldAboveLimit: 0 });
    expect(small.types()).toContain('TransactionSucceeded');
    expect(pulled.types()).toContain('TransactionSucceeded');
  });
});

describe('the daily close', () => {
  it('closes a day before its SLA once its expected sources are in, but never before the day has ended', async () => {
    // Prepare: the account expects the pull; its first row of the day comes in the morning.
    const expecting = parseConfig({
      management: { bearerToken: 'a-long-enough-token' },
      accounts: { daraja: { ke: { pathSecret: 'daraja-path-secret-0123', shortCode: '600638' } } },
      statements: { accounts: { 'daraja/ke': { expectedSources: ['pull-api'] } } },
    });
    const t = setup('2026-11-21T07:30:00.000Z');
    const deps = { ...t.deps, config: expecting };
    await new StatementLedger(deps).ingestRows([row()], SYSTEM);
    const at = { provider: 'daraja', account: 'ke', day: '2026-11-21' };
    // Act: a person closes the day at 10:30 Nairobi time, then again once it ended (21:00 UTC).
    const during = await closeDay(deps, at, { actor: OPERATOR });
    const storedDuring = await t.statements.getClose(at);
    t.at('2026-11-21T21:00:00.000Z');
    const ended = await closeDay(deps, at, { actor: OPERATOR });
    // Assess
    expect(during).toMatchObject({ state: 'open', closedBecause: null, closedAt: null });
    expect(storedDuring).toBeUndefined();
    expect(ended).toMatchObject({ state: 'closed', closedBecause: 'sources-in' });
  });

  it('closes a day after its SLA: missing at provider, duplicate credit, match rate, DailyClosed once', async () => {
    // Prepare
    const t = setup('2026-11-21T20:00:00.000Z');
    await t.store.createTransaction(succeeded('SKP0000001'));
    await t.store.createTransaction(succeeded('SKP0000002'));
    await t.store.createTransaction(succeeded('SKP0000003'));
    await t.store.createTransaction(
      c2b('SKA0000004', {
        status: 'FAILED',
        transitions: [
          {
            from: 'PENDING',
            to: 'FAILED',
            at: '2026-11-21T08:00:00.000Z',
            origin: 'poll',
            receiptId: undefined,
          },
        ],
      }),
    );
    const ledger = new StatementLedger(t.deps);
    await ledger.ingestRows(
      [
        row({ providerId: 'SKP0000001' }),
        row({ providerId: 'SKP0000002' }),
        row({
          providerId: 'SKF0000001',
          kind: 'fee',
          amountIn: '0',
          amountOut: '7.5',
          linkedProviderId: 'SKP0000001',
        }),
      ],
      SYSTEM,
    );
    const at = { provider: 'daraja', account: 'ke', day: '2026-11-21' };
    const before = await closeDay(t.deps, at, { actor: OPERATOR });
    // Act: the day ended at 21:00 UTC (Nairobi midnight); T+1 passes at 21:00 UTC on the 22nd.
    t.at('2026-11-22T21:00:00.000Z');
    const closed = await closeDay(t.deps, at, { actor: OPERATOR });
    const again = await closeDay(t.deps, at, { actor: OPERATOR });
    // Assess
    expect(before.state).toBe('open');
    expect(before.breaks).toEqual([]);
    expect(closed).toMatchObject({
      state: 'closed',
      closedBecause: 'sla-passed',
      rows: { payments: 2, matched: 2, fees: { count: 1, amount: '7.5' } },
      verdicts: { SUCCEEDED: { count: 3, amount: '4500' }, FAILED: { count: 1, amount: '1500' } },
      matchRate: { matched: 2, toMatch: 3, rate: 0.6667 },
    });
    expect(closed.breaks.map((b) => [b.category, b.reference, b.ageSeconds])).toEqual([
      ['missing-at-provider', 'SKP0000003', 0],
    ]);
    expect(again.state).toBe('closed');
    expect(t.statements.published.map((e) => e.metadata.type)).toEqual(['DailyClosed']);
    expect(closeCsv(closed)).toContain('missing-at-provider');
  });

  it('counts a transaction a row opened on the business day the money moved, not the day it was imported', async () => {
    // Prepare: the payment moved at 23:30 Nairobi on the 20th; the pull brings it two days later.
    const t = setup('2026-11-22T10:00:00.000Z');
    const ledger = new StatementLedger(t.deps);
    await ledger.ingestRows([row({ providerId: 'SKP0000009', time: '2026-11-20T20:30:00.000Z' })], SYSTEM);
    // Act
    const moved = await closeDay(
      t.deps,
      { provider: 'daraja', account: 'ke', day: '2026-11-20' },
      { actor: OPERATOR, close: false },
    );
    const imported = await closeDay(
      t.deps,
      { provider: 'daraja', account: 'ke', day: '2026-11-22' },
      { actor: OPERATOR, close: false },
    );
    // Assess
    expect(moved.verdicts).toEqual({ SUCCEEDED: { count: 1, amount: '1500' } });
    expect(moved.breaks.map((b) => [b.category, b.resolution])).toEqual([['missing-in-relay', 'opened']]);
    expect(imported.verdicts).toEqual({});
  });

  it("reads only its own account's day: no transaction of another day or account is listed or read", async () => {
    // Prepare: the day before, and another account the same day, hold transactions the close must not touch.
    const t = setup('2026-11-22T21:00:00.000Z');
    for (let n = 0; n < 5; n++) {
      await t.store.createTransaction(succeeded(`SKP000001${n}`, '2026-11-20T06:00:05.000Z'));
      await t.store.createTransaction(
        registered({
          ...succeeded(`SKP000002${n}`),
          key: { provider: 'momo', account: 'demo', reference: `momo-${n}` },
        }),
      );
    }
    await t.store.createTransaction(succeeded('SKP0000001'));
    const reads: string[] = [];
    const store = Object.create(t.store) as typeof t.store;
    store.getTransaction = async (key) => {
      reads.push(key.reference);
      return t.store.getTransaction(key);
    };
    store.listCreated = async (from, to) => {
      reads.push(`listCreated ${from}..${to}`);
      return t.store.listCreated(from, to);
    };
    // Act
    const day = await closeDay(
      { ...t.deps, store },
      { provider: 'daraja', account: 'ke', day: '2026-11-21' },
      { actor: OPERATOR, close: false },
    );
    // Assess
    expect(day.verdicts).toEqual({ SUCCEEDED: { count: 1, amount: '1500' } });
    expect(day.breaks.map((b) => [b.category, b.reference])).toEqual([['missing-at-provider', 'SKP0000001']]);
    expect(reads).toEqual([]);
  });

  it('finds one payment credited twice as a duplicate credit', async () => {
    // Prepare
    const t = setup();
    await t.store.createTransaction(c2b('INV-9', { kind: 'stk', externalId: undefined }));
    await t.store.putRecord({
      provider: 'daraja',
      account: 'ke',
      namespace: 'alias:receipt',
      id: 'SKD0000002',
      data: { reference: 'INV-9' },
      createdAt: '2026-11-21T06:00:00.000Z',
    });
    await t.store.putRecord({
      provider: 'daraja',
      account: 'ke',
      namespace: 'alias:receipt',
      id: 'SKD0000001',
      data: { reference: 'INV-9' },
      createdAt: '2026-11-21T06:00:00.000Z',
    });
    await new StatementLedger(t.deps).ingestRows(
      [row({ providerId: 'SKD0000001' }), row({ providerId: 'SKD0000002' })],
      SYSTEM,
    );
    // Act
    const report = await closeDay(
      t.deps,
      { provider: 'daraja', account: 'ke', day: '2026-11-21' },
      { actor: OPERATOR, close: false },
    );
    // Assess
    expect(report.breaks.map((b) => [b.category, b.reference, b.amount])).toEqual([
      ['duplicate-credit', 'INV-9', '1500'],
    ]);
  });

  it('a balance that moved by more than the finals and fees is a balance-drift break with its amount', async () => {
    // Prepare
    const t = setup();
    await t.store.createTransaction(succeeded('SKP0000001', '2026-11-21T07:00:00.000Z'));
    await new StatementLedger(t.deps).ingestRows(
      [
        row({
          providerId: 'SKF0000001',
          kind: 'fee',
          amountIn: '0',
          amountOut: '7.5',
          linkedProviderId: 'SKP0000001',
          time: '2026-11-21T07:00:01.000Z',
        }),
      ],
      SYSTEM,
    );
    const snapshot = { provider: 'daraja', account: 'ke', source: 'balance-api' as const, currency: 'KES' };
    await recordBalance(t.deps, { ...snapshot, at: '2026-11-21T06:00:00.000Z', balance: '10000' }, SYSTEM);
    // Act
    const exact = await recordBalance(
      t.deps,
      { ...snapshot, at: '2026-11-21T08:00:00.000Z', balance: '11492.5' },
      SYSTEM,
    );
    const drift = await recordBalance(
      t.deps,
      { ...snapshot, at: '2026-11-21T09:00:00.000Z', balance: '11392.5' },
      SYSTEM,
    );
    // Assess
    expect(exact).toBeUndefined();
    expect(drift).toMatchObject({ category: 'balance-drift', amount: '100', expected: '0', actual: '-100' });
    expect(drift?.detail).not.toContain('unconfirmed');
  });

  it("a drift resting on a balance only an unsigned callback vouches for says so (Daraja's result)", async () => {
    // Prepare: the provider's own answer, then a balance Daraja's result callback carried (path secret only).
    const t = setup();
    const snapshot = { provider: 'daraja', account: 'ke', source: 'balance-api' as const, currency: 'KES' };
    await recordBalance(
      t.deps,
      { ...snapshot, at: '2026-11-21T06:00:00.000Z', balance: '10000', authentication: ['provider-api'] },
      SYSTEM,
    );
    // Act
    const drift = await recordBalance(
      t.deps,
      { ...snapshot, at: '2026-11-21T07:00:00.000Z', balance: '9900', authentication: ['path-secret'] },
      SYSTEM,
    );
    // Assess
    expect(drift?.detail).toContain(
      "the balance at 2026-11-21T07:00:00.000Z is unconfirmed (an unsigned callback's)",
    );
  });
});

describe('the balance judged at the close', () => {
  it('counts a payment when its row dates the move, not at a verdict that came after the snapshot', async () => {
    // Prepare: the money moved at 06:59:50, the callback's verdict came at 07:00:30, after the 07:00 snapshot.
    const t = setup();
    await t.store.createTransaction(succeeded('SKP0000001', '2026-11-21T07:00:30.000Z'));
    const snapshot = { provider: 'daraja', account: 'ke', source: 'balance-api' as const, currency: 'KES' };
    await recordBalance(t.deps, { ...snapshot, at: '2026-11-21T06:00:00.000Z', balance: '10000' }, SYSTEM);
    const soFar = await recordBalance(
      t.deps,
      { ...snapshot, at: '2026-11-21T07:00:00.000Z', balance: '11500' },
      SYSTEM,
    );
    await new StatementLedger(t.deps).ingestRows([row({ time: '2026-11-21T06:59:50.000Z' })], SYSTEM);
    t.at('2026-11-23T00:00:00.000Z');
    // Act
    const report = await closeDay(
      t.deps,
      { provider: 'daraja', account: 'ke', day: '2026-11-21' },
      { actor: OPERATOR, close: false },
    );
    // Assess: before the row came, the snapshot saw a drift so far; the close, with the row in, none.
    expect(soFar).toMatchObject({ category: 'balance-drift', amount: '1500' });
    expect(report.breaks.filter((b) => b.category === 'balance-drift')).toEqual([]);
  });

  it("stores a drift the day's records leave unexplained as a break of the day", async () => {
    // Prepare: 100 left the balance and no final, fee or row says why.
    const t = setup();
    const snapshot = { provider: 'daraja', account: 'ke', source: 'balance-api' as const, currency: 'KES' };
    await recordBalance(t.deps, { ...snapshot, at: '2026-11-21T06:00:00.000Z', balance: '10000' }, SYSTEM);
    await recordBalance(t.deps, { ...snapshot, at: '2026-11-21T07:00:00.000Z', balance: '9900' }, SYSTEM);
    t.at('2026-11-23T00:00:00.000Z');
    // Act
    const report = await closeDay(
      t.deps,
      { provider: 'daraja', account: 'ke', day: '2026-11-21' },
      { actor: OPERATOR, close: false },
    );
    // Assess
    expect(report.breaks.map((b) => [b.category, b.amount, b.actual, b.expected])).toEqual([
      ['balance-drift', '100', '-100', '0'],
    ]);
  });
});

describe('one payment from two sources', () => {
  it('a pull row and the same payment in an uploaded file are one row, not a change', async () => {
    // Prepare
    const t = setup();
    const ledger = new StatementLedger(t.deps);
    await t.store.createTransaction(succeeded('SKP0000001'));
    await ledger.ingestRows([row()], SYSTEM);
    // Act
    const fromFile = await ledger.ingestRows(
      [
        row({
          source: 'statement-file',
          status: 'COMPLETED',
          balance: '101500',
          origin: { ref: 'statement.csv', row: 5 },
        }),
      ],
      { actor: OPERATOR },
    );
    // Assess
    expect(fromFile).toMatchObject({ alreadyKnown: 1, breaks: 0 });
  });
});
