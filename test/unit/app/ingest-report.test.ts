import { reconciliationSchema } from '../../../shared/config/schema';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import {
  checkReportLimits,
  type IngestDeps,
  ingestIntents,
  ingestReport,
  resolveReference,
} from '../../../shared/app/transactions/ingest-report';
import type { RelayLogger } from '../../../shared/app/ports';
import type { ReceiptDraft } from '../../../shared/app/callbacks/receipts';
import { InvalidReferenceError, SchemaValidationError } from '../../../shared/domain/errors';
import type { NormalizedReport, ReportDraft } from '../../../shared/domain/transaction';
import type { ReportIntent } from '../../../shared/providers/types';
import { KEY, registered, report } from '../../helpers/reports';

const NOW = '2026-11-21T10:00:01.000Z';

function collectingLogger(): RelayLogger & {
  lines: { level: string; message: string; fields: unknown[] }[];
} {
  const lines: { level: string; message: string; fields: unknown[] }[] = [];
  const at =
    (level: string) =>
    (message: string, ...fields: Record<string, unknown>[]) =>
      lines.push({ level, message, fields });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

function setup() {
  const store = new MemoryStore();
  const log = collectingLogger();
  const deps: IngestDeps = {
    store,
    clock: { now: () => new Date(NOW) },
    log,
    reconciliation: reconciliationSchema.parse({ windowSeconds: 3600 }),
  };
  return { store, log, deps };
}

const typesOf = (store: MemoryStore) => store.published.map((e) => e.metadata.type);

/** A report as a provider dialect drafts it (no receivedAt/origin/receipt yet). */
function draftOf(overrides: Partial<NormalizedReport> = {}): ReportDraft {
  const { receivedAt: _r, origin: _o, receiptId: _id, ...draft } = report(overrides);
  return draft;
}

function receiptDraft(body = '{"status":"SUCCESSFUL"}'): ReceiptDraft {
  return {
    routeName: 'callback',
    method: 'PUT',
    path: `/v1/momo/demo/{secret}/requesttopay/${KEY.reference}`,
    headers: { 'content-type': 'application/json' },
    sourceIp: '198.51.100.7',
    body,
    rawBody: Buffer.from(body),
    receivedAt: '2026-11-21T10:00:00.000Z',
    verification: { pathSecret: 'verified' },
  };
}

describe('ingestReport: one report through read → decide → conditional write', () => {
  it('publishes one event for a report delivered twice', async () => {
    // Prepare
    const { store, deps } = setup();
    await store.createTransaction(registered());

    // Act
    const first = await ingestReport(deps, report());
    const second = await ingestReport(deps, report());

    // Assess
    expect(first).toMatchObject({ kind: 'write', effect: 'advanced' });
    expect(second).toEqual({ kind: 'noop', why: 'same-status' });
    expect(typesOf(store)).toEqual(['TransactionSucceeded']);
    expect((await store.getTransaction(KEY))!).toMatchObject({ status: 'SUCCEEDED', revision: 2 });
  });

  it('keeps the first final status and raises TransactionConflict when another final status arrives', async () => {
    // Prepare
    const { store, deps } = setup();
    await store.createTransaction(registered());
    await ingestReport(deps, report());

    // Act
    const outcome = await ingestReport(
      deps,
      report({ status: 'FAILED', reason: { code: 'PROVIDER_ERROR', message: undefined, providerCode: 'X' } }),
    );

    // Assess
    expect(outcome).toMatchObject({ kind: 'write', effect: 'conflict' });
    expect(typesOf(store)).toEqual(['TransactionSucceeded', 'TransactionConflict']);
    const stored = (await store.getTransaction(KEY))!;
    expect(stored.status).toBe('SUCCEEDED');
    expect(stored.conflicts).toMatchObject([{ kind: 'STATUS', reportedStatus: 'FAILED' }]);
  });

  it('records a report nobody registered as an orphan and raises CallbackOrphaned', async () => {
    // Prepare
    const { store, deps } = setup();

    // Act
    const outcome = await ingestReport(deps, report());

    // Assess
    expect(outcome).toMatchObject({ kind: 'write', effect: 'orphan-created' });
    expect(typesOf(store)).toEqual(['CallbackOrphaned', 'TransactionSucceeded']);
    expect((await store.getTransaction(KEY))!).toMatchObject({
      registered: false,
      status: 'SUCCEEDED',
      revision: 1,
    });
  });

  it('creates a born transaction without CallbackOrphaned and seeds the amount it was born with', async () => {
    // Prepare
    const { store, deps } = setup();
    const born = { amount: { value: '100', currency: 'EUR' }, attributes: { ValidationDecision: 'accept' } };

    // Act
    const outcome = await ingestReport(deps, report({ amount: undefined, authenticated: true }), { born });

    // Assess
    expect(outcome).toMatchObject({ kind: 'write', effect: 'created' });
    expect(typesOf(store)).toEqual(['TransactionSucceeded']);
    const stored = (await store.getTransaction(KEY))!;
    expect(stored.amount).toEqual({ value: '100', currency: 'EUR' });
    expect(stored.attributes).toMatchObject({ ValidationDecision: 'accept' });
    expect(stored.registered).toBe(false);
  });

  it('applies the UNCONFIRMED rule to the amount a transaction was born with', async () => {
    // Prepare
    const { store, deps } = setup();

    // Act
    await ingestReport(deps, report({ amount: undefined }), {
      born: { amount: { value: '100', currency: 'EUR' } },
    });

    // Assess
    expect(typesOf(store)).toEqual(['TransactionAmbiguous']);
    expect((await store.getTransaction(KEY))!).toMatchObject({
      status: 'AMBIGUOUS',
      reason: { code: 'UNCONFIRMED' },
    });
  });

  it('creates a born transaction from a report that carries the same amount as SUCCEEDED', async () => {
    // Prepare
    const { store, deps } = setup();

    // Act
    await ingestReport(deps, report(), { born: { amount: { value: '100.00', currency: 'EUR' } } });

    // Assess
    expect(typesOf(store)).toEqual(['TransactionSucceeded']);
    expect((await store.getTransaction(KEY))!.status).toBe('SUCCEEDED');
  });

  it('refuses a born success for another amount than the one it was born with (conflict, not success)', async () => {
    // Prepare
    const { store, deps } = setup();

    // Act
    await ingestReport(deps, report({ amount: { value: '1', currency: 'EUR' } }), {
      born: { amount: { value: '100', currency: 'EUR' } },
    });

    // Assess
    expect(typesOf(store)).toEqual(['TransactionConflict']);
    const stored = (await store.getTransaction(KEY))!;
    expect(stored.status).toBe('PENDING');
    expect(stored.conflicts).toMatchObject([{ kind: 'AMOUNT_MISMATCH' }]);
  });

  it('records an unauthenticated success without an amount on a transaction registered with one as AMBIGUOUS (UNCONFIRMED)', async () => {
    // Prepare
    const { store, deps } = setup();
    await store.createTransaction(registered());

    // Act
    await ingestReport(deps, report({ amount: undefined, authenticated: false }));

    // Assess
    const stored = (await store.getTransaction(KEY))!;
    expect(stored.status).toBe('AMBIGUOUS');
    expect(stored.reason).toMatchObject({ code: 'UNCONFIRMED' });
    expect(stored.reason!.message).toContain('100 EUR');
    expect(typesOf(store)).toEqual(['TransactionAmbiguous']);
  });

  it('settles an authenticated success without an amount as SUCCEEDED', async () => {
    // Prepare
    const { store, deps } = setup();
    await store.createTransaction(registered());

    // Act
    await ingestReport(deps, report({ amount: undefined, authenticated: true }));

    // Assess
    expect((await store.getTransaction(KEY))!).toMatchObject({
      status: 'SUCCEEDED',
      amount: { value: '100' },
    });
    expect(typesOf(store)).toEqual(['TransactionSucceeded']);
  });

  it('settles an unauthenticated success without an amount when nothing registered an amount', async () => {
    // Prepare
    const { store, deps } = setup();
    await store.createTransaction(registered({ amount: undefined }));

    // Act
    await ingestReport(deps, report({ amount: undefined }));

    // Assess
    expect((await store.getTransaction(KEY))!.status).toBe('SUCCEEDED');
  });

  it('publishes exactly one status event when 20 identical reports race for a registered transaction', async () => {
    // Prepare
    const { store, deps } = setup();
    await store.createTransaction(registered());

    // Act
    const outcomes = await Promise.all(Array.from({ length: 20 }, () => ingestReport(deps, report())));

    // Assess
    expect(outcomes.filter((o) => o.kind === 'write')).toHaveLength(1);
    expect(typesOf(store)).toEqual(['TransactionSucceeded']);
    const stored = (await store.getTransaction(KEY))!;
    expect(stored.transitions).toHaveLength(1);
    expect(stored.revision).toBe(2);
  });

  it('creates one orphan and one set of events when 20 identical reports race for an unknown transaction', async () => {
    // Prepare
    const { store, deps } = setup();

    // Act
    await Promise.all(Array.from({ length: 20 }, () => ingestReport(deps, report())));

    // Assess
    expect(typesOf(store)).toEqual(['CallbackOrphaned', 'TransactionSucceeded']);
  });

  it('refuses a report over the limits before touching the store', async () => {
    // Prepare
    const { store, deps } = setup();
    store.failure = 'error';

    // Act
    const run = (async () => ingestReport(deps, report({ key: { ...KEY, reference: 'x'.repeat(201) } })))();

    // Assess: the limit error, not the (simulated) outage.
    await expect(run).rejects.toBeInstanceOf(InvalidReferenceError);
  });
});

describe('checkReportLimits: every report is storable whatever its origin', () => {
  const limits = (overrides: Partial<NormalizedReport>) => () => checkReportLimits(report(overrides));

  it('accepts a reference of exactly 200 characters', () => {
    expect(limits({ key: { ...KEY, reference: 'r'.repeat(200) } })).not.toThrow();
  });

  it.each([
    ['over 200 characters', 'r'.repeat(201)],
    ['empty', ''],
    ['with a newline', 'abc\ndef'],
    ['with a NUL', 'abc\u0000'],
    ['with DEL', 'abc\u007f'],
    // A Daraja TransID or STK id "..": a URL path resolves it away, so the transaction could never be read.
    ['that is a dot segment "."', '.'],
    ['that is a dot segment ".."', '..'],
  ])('refuses a reference %s with InvalidReferenceError', (_name, reference) => {
    expect(limits({ key: { ...KEY, reference } })).toThrow(InvalidReferenceError);
  });

  it('refuses a provider transaction id or external id with control characters or over 200 characters', () => {
    expect(limits({ providerTransactionId: 'a\tb' })).toThrow(SchemaValidationError);
    expect(limits({ externalId: 'e'.repeat(201) })).toThrow(SchemaValidationError);
  });

  it.each([['constructor'], [''], ['__proto__'], ['prototype'], ['bad\nname'], ['n'.repeat(129)]])(
    'refuses the attribute name %j with SchemaValidationError',
    (name) => {
      const attributes = Object.defineProperty({} as Record<string, string>, name, {
        value: 'x',
        enumerable: true,
      });
      expect(limits({ attributes })).toThrow(SchemaValidationError);
    },
  );

  it('refuses more than 100 attributes and an attribute value over 2048 characters', () => {
    const many = Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`a${i}`, 'x']));
    expect(limits({ attributes: many })).toThrow(SchemaValidationError);
    expect(limits({ attributes: { big: 'v'.repeat(2049) } })).toThrow(SchemaValidationError);
    expect(limits({ attributes: { fine: 'v'.repeat(2048) } })).not.toThrow();
  });
});

describe('resolveReference: finding the transaction a report is about', () => {
  const { provider, account } = KEY;

  it('follows an alias record to the reference it names', async () => {
    // Prepare
    const { store } = setup();
    await store.putRecord({
      provider,
      account,
      namespace: 'alias:ConversationID',
      id: 'AG_20191219_0000',
      data: { reference: 'orig-conv-1' },
      createdAt: NOW,
    });

    // Act
    const reference = await resolveReference(store, provider, account, [
      { via: 'ConversationID', value: 'AG_20191219_0000' },
      { via: 'reference', value: 'AG_20191219_0000' },
    ]);

    // Assess
    expect(reference).toBe('orig-conv-1');
  });

  it('prefers a candidate that names a stored transaction directly', async () => {
    // Prepare
    const { store } = setup();
    await store.createTransaction(registered({ key: { ...KEY, reference: 'second' } }));

    // Act
    const reference = await resolveReference(store, provider, account, [
      { via: 'reference', value: 'first' },
      { via: 'reference', value: 'second' },
    ]);

    // Assess
    expect(reference).toBe('second');
  });

  it('falls back to the first direct candidate when nothing matches, and to undefined when no id is present', async () => {
    // Prepare
    const { store } = setup();

    // Act
    const fallback = await resolveReference(store, provider, account, [
      { via: 'ConversationID', value: 'conv' },
      { via: 'reference', value: null },
      { via: 'reference', value: 'direct' },
    ]);
    const none = await resolveReference(store, provider, account, [{ via: 'reference', value: undefined }]);

    // Assess
    expect(fallback).toBe('direct');
    expect(none).toBeUndefined();
  });

  it('skips candidates that could never be a storage key without looking them up', async () => {
    // Prepare
    const { store } = setup();
    await store.createTransaction(registered({ key: { ...KEY, reference: 'ok' } }));

    // Act
    const reference = await resolveReference(store, provider, account, [
      { via: 'ConversationID', value: 'x'.repeat(300) },
      { via: 'reference', value: 'bad\u0001' },
      { via: 'reference', value: 'ok' },
    ]);

    // Assess
    expect(reference).toBe('ok');
  });
});

describe('ingestIntents: what one delivery says', () => {
  const batch = (intents: ReportIntent[], overrides: Partial<Parameters<typeof ingestIntents>[1]> = {}) => ({
    provider: KEY.provider,
    account: KEY.account,
    origin: 'callback' as const,
    receivedAt: '2026-11-21T10:00:00.000Z',
    authenticated: false,
    intents,
    ...overrides,
  });

  it('stores the receipt and applies the report, counting a repeated delivery on the same receipt', async () => {
    // Prepare
    const { store, deps } = setup();
    await store.createTransaction(registered());
    const delivery = batch([{ draft: draftOf() }], { receipt: receiptDraft() });

    // Act
    const first = await ingestIntents(deps, delivery);
    const second = await ingestIntents(deps, delivery);

    // Assess
    expect(first.receipt).toMatchObject({ deliveries: 1 });
    expect(second.receipt).toEqual({ receiptId: first.receipt!.receiptId, deliveries: 2 });
    expect(second.outcomes).toEqual([{ kind: 'noop', why: 'same-status' }]);
    expect(typesOf(store)).toEqual(['TransactionSucceeded']);
    const stored = (await store.getTransaction(KEY))!;
    expect(stored.transitions[0]!.receiptId).toBe(first.receipt!.receiptId);
  });

  it('records the aliases a report teaches once it is written', async () => {
    // Prepare
    const { store, deps } = setup();
    await store.createTransaction(registered());
    const intent: ReportIntent = {
      draft: draftOf(),
      aliases: [
        { namespace: 'ConversationID', value: 'AG_1' },
        { namespace: 'ConversationID', value: KEY.reference },
        { namespace: 'ConversationID', value: null },
      ],
    };

    // Act
    await ingestIntents(deps, batch([intent]));
    const found = await resolveReference(store, KEY.provider, KEY.account, [
      { via: 'ConversationID', value: 'AG_1' },
    ]);

    // Assess
    expect(found).toBe(KEY.reference);
    expect([...store.records.values()].map((r) => `${r.namespace}/${r.id}`)).toEqual([
      'alias:ConversationID/AG_1',
    ]);
  });

  it('correlates a later report through the alias an earlier one recorded', async () => {
    // Prepare
    const { store, deps } = setup();
    await store.createTransaction(registered());
    await ingestIntents(
      deps,
      batch([
        {
          draft: draftOf({ status: 'AMBIGUOUS' }),
          aliases: [{ namespace: 'ConversationID', value: 'AG_9' }],
        },
      ]),
    );

    // Act
    await ingestIntents(
      deps,
      batch([
        {
          draft: draftOf({ key: { ...KEY, reference: 'unknown' } }),
          correlate: [
            { via: 'ConversationID', value: 'AG_9' },
            { via: 'reference', value: 'AG_9' },
          ],
        },
      ]),
    );

    // Assess
    expect((await store.getTransaction(KEY))!.status).toBe('SUCCEEDED');
    expect(await store.getTransaction({ ...KEY, reference: 'AG_9' })).toBeUndefined();
  });

  it('does not fail a delivery that is applied when its alias cannot be written (logs instead)', async () => {
    // Prepare
    const { store, deps, log } = setup();
    await store.createTransaction(registered());
    store.putRecordIfAbsent = async () => {
      throw new Error('alias table unavailable');
    };

    // Act
    const result = await ingestIntents(
      deps,
      batch([{ draft: draftOf(), aliases: [{ namespace: 'ConversationID', value: 'AG_1' }] }]),
    );

    // Assess
    expect(result.outcomes[0]).toMatchObject({ kind: 'write' });
    expect(log.lines.some((l) => l.level === 'warn' && l.message === 'reference alias not written')).toBe(
      true,
    );
  });

  it('refuses a delivery that carries no id to correlate with', async () => {
    // Prepare
    const { deps } = setup();

    // Act
    const run = ingestIntents(
      deps,
      batch([{ draft: draftOf(), correlate: [{ via: 'reference', value: '' }] }]),
    );

    // Assess
    await expect(run).rejects.toBeInstanceOf(SchemaValidationError);
  });

  it('seeds a born transaction from its linked record: expected amount and link attributes', async () => {
    // Prepare
    const { store, deps } = setup();
    await store.putRecord({
      provider: KEY.provider,
      account: KEY.account,
      namespace: 'c2b-validation',
      id: KEY.reference,
      data: {
        link: { ValidationDecision: 'accept', ValidationResultCode: '0' },
        expectedAmount: { value: '100', currency: 'EUR' },
      },
      createdAt: NOW,
    });
    const intent: ReportIntent = {
      draft: draftOf(),
      born: true,
      link: { namespace: 'c2b-validation', id: KEY.reference },
    };

    // Act
    await ingestIntents(deps, batch([intent]));

    // Assess
    expect(typesOf(store)).toEqual(['TransactionSucceeded']);
    expect((await store.getTransaction(KEY))!).toMatchObject({
      status: 'SUCCEEDED',
      amount: { value: '100', currency: 'EUR' },
      attributes: { ValidationDecision: 'accept', ValidationResultCode: '0' },
    });
  });

  it('passes the batch authentication to the UNCONFIRMED rule', async () => {
    // Prepare
    const { store, deps } = setup();
    await store.createTransaction(registered());
    await store.createTransaction(registered({ key: { ...KEY, reference: 'signed' } }));

    // Act
    await ingestIntents(deps, batch([{ draft: draftOf({ amount: undefined }) }], { authenticated: false }));
    await ingestIntents(
      deps,
      batch([{ draft: draftOf({ amount: undefined, key: { ...KEY, reference: 'signed' } }) }], {
        authenticated: true,
      }),
    );

    // Assess
    expect((await store.getTransaction(KEY))!.status).toBe('AMBIGUOUS');
    expect((await store.getTransaction({ ...KEY, reference: 'signed' }))!.status).toBe('SUCCEEDED');
  });

  it('stores nothing when the store is down, so nothing can be acknowledged', async () => {
    // Prepare
    const { store, deps } = setup();
    store.failure = 'error';

    // Act
    const run = ingestIntents(deps, batch([{ draft: draftOf() }], { receipt: receiptDraft() }));

    // Assess
    await expect(run).rejects.toThrow();
    expect(store.receipts.size).toBe(0);
    expect(store.transactions.size).toBe(0);
  });
});
