import { reconciliationSchema } from '../../../shared/config/schema';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { ingestReport } from '../../../shared/app/transactions/ingest-report';
import {
  type ManagementDeps,
  registerTransaction,
} from '../../../shared/app/transactions/register-transaction';
import { parseConfig } from '../../../shared/config/load';
import { toSummary } from '../../../shared/app/console/console-query';
import {
  InvalidCallbackUrlError,
  InvalidReferenceError,
  RegistrationConflictError,
  SchemaValidationError,
  UnknownAccountError,
  UnknownKindError,
} from '../../../shared/domain/errors';
import type { NormalizedReport } from '../../../shared/domain/transaction';

const NOW = '2026-11-21T10:00:05.000Z';
const DARAJA_SECRET = 'daraja-path-secret-0123';

const config = parseConfig({
  management: { bearerToken: 'a-long-enough-token' },
  reconciliation: { windowSeconds: 3600 },
  accounts: {
    daraja: { ke: { pathSecret: DARAJA_SECRET, shortCode: '600638' } },
    momo: { demo: { pathSecret: 'momo-path-secret-0123' } },
  },
});

const KEY = { provider: 'daraja', account: 'ke', reference: 'ws_CO_191220191020363925' };

function setup() {
  const store = new MemoryStore();
  const deps: ManagementDeps = { config, store, clock: { now: () => new Date(NOW) } };
  const ingestDeps = {
    store,
    clock: deps.clock,
    log: silent,
    reconciliation: reconciliationSchema.parse({ windowSeconds: 3600 }),
  };
  return { store, deps, ingestDeps };
}

const silent = { debug() {}, info() {}, warn() {}, error() {} };

const registration = (overrides: Record<string, unknown> = {}) => ({
  provider: 'daraja',
  account: 'ke',
  kind: 'stk',
  reference: KEY.reference,
  amount: '1000',
  currency: 'KES',
  msisdn: '254708374149',
  externalId: 'order-77',
  ...overrides,
});

/** An STK success that arrived before anyone registered the transaction. */
function orphanSuccess(amount: string, overrides: Partial<NormalizedReport> = {}): NormalizedReport {
  return {
    key: KEY,
    kind: 'stk',
    status: 'SUCCEEDED',
    reason: undefined,
    providerTransactionId: 'NLJ7RT61SV',
    externalId: undefined,
    amount: { value: amount, currency: 'KES' },
    party: { idType: 'MSISDN', id: '254708374149' },
    receivedAt: '2026-11-21T10:00:00.000Z',
    origin: 'callback',
    receiptId: 'r-orphan',
    attributes: { MpesaReceiptNumber: 'NLJ7RT61SV' },
    ...overrides,
  };
}

const typesOf = (store: MemoryStore) => store.published.map((e) => e.metadata.type);

describe('registerTransaction', () => {
  it("takes the account's configured currency when the registration names none, so the amount is {value, currency}", async () => {
    // Prepare
    const { store, deps, ingestDeps } = setup();

    // Act
    const result = await registerTransaction(deps, registration({ currency: undefined }));
    await ingestReport(ingestDeps, { ...orphanSuccess('1000'), receiptId: 'r-late', receivedAt: NOW });

    // Assess
    expect(result.transaction.amount).toEqual({ value: '1000', currency: 'KES' });
    const succeeded = store.published.find((e) => e.metadata.type === 'TransactionSucceeded');
    expect(succeeded?.data.amount).toEqual({ value: '1000', currency: 'KES' });
  });

  it('masks a phone number the partner wrote in its externalId or anywhere in its metadata, in the read and the list row', async () => {
    // Prepare
    const { store, deps } = setup();
    const input = registration({
      externalId: 'customer 254708374149',
      metadata: { phone: '254708374149', note: 'call +254 708 374 149', order: 'A-1', lines: ['0708374149'] },
    });

    // Act
    const result = await registerTransaction(deps, input);
    const row = toSummary((await store.getTransaction(KEY))!);

    // Assess: no whole number anywhere; what is no number stays as written.
    expect(result.transaction.externalId).toBe('customer 2547*****149');
    expect(result.transaction.metadata).toEqual({
      phone: '2547*****149',
      note: 'call 2547*****149',
      order: 'A-1',
      lines: ['070****149'],
    });
    expect(row.externalId).toBe('customer 2547*****149');
    expect(JSON.stringify([result.transaction, row])).not.toMatch(/708374149|708 374 149/);
  });

  it('creates a PENDING registered transaction and hands out its callback URL', async () => {
    // Prepare
    const { store, deps } = setup();

    // Act
    const result = await registerTransaction(deps, registration());

    // Assess
    expect(result.created).toBe(true);
    expect(result.transaction).toMatchObject({
      ...KEY,
      kind: 'stk',
      status: 'PENDING',
      registered: true,
      amount: { value: '1000', currency: 'KES' },
      // Answered masked, like every number a management answer holds.
      msisdn: '2547*****149',
      externalId: 'order-77',
      revision: 1,
      reconcileUntil: '2026-11-21T11:00:05.000Z',
    });
    expect(result.callbackUrl).toBe(`http://localhost:3000/v1/daraja/ke/${DARAJA_SECRET}/stk`);
    expect(store.transactions.size).toBe(1);
    expect(store.published).toEqual([]);
  });

  it('answers an identical repeat with the stored transaction, without writing again', async () => {
    // Prepare
    const { store, deps } = setup();
    const first = await registerTransaction(deps, registration());

    // Act
    const repeat = await registerTransaction(deps, registration());

    // Assess
    expect(repeat.created).toBe(false);
    expect(repeat.transaction).toEqual(first.transaction);
    expect((await store.getTransaction(KEY))!.revision).toBe(1);
  });

  it.each([
    ['another amount', { amount: '999' }],
    ['another MSISDN', { msisdn: '254700000000' }],
    ['another external id', { externalId: 'order-78' }],
    ['another kind', { kind: 'b2c' }],
  ])(
    'refuses a repeat with %s with RegistrationConflictError carrying the existing transaction',
    async (_n, change) => {
      // Prepare
      const { deps } = setup();
      await registerTransaction(deps, registration());

      // Act
      const error = await registerTransaction(deps, registration(change)).catch((e: unknown) => e);

      // Assess
      expect(error).toBeInstanceOf(RegistrationConflictError);
      expect((error as RegistrationConflictError).details).toMatchObject({
        existing: { amount: { value: '1000' } },
      });
    },
  );

  it('adopts an orphan success for the same amount and keeps it SUCCEEDED', async () => {
    // Prepare
    const { store, deps, ingestDeps } = setup();
    await ingestReport(ingestDeps, orphanSuccess('1000'));
    const before = store.published.length;

    // Act
    const result = await registerTransaction(deps, registration());

    // Assess
    expect(result.created).toBe(false);
    expect(result.transaction).toMatchObject({
      status: 'SUCCEEDED',
      registered: true,
      amount: { value: '1000', currency: 'KES' },
      externalId: 'order-77',
      providerTransactionId: 'NLJ7RT61SV',
      attributes: { MpesaReceiptNumber: 'NLJ7RT61SV' },
      revision: 2,
    });
    expect(store.published.length).toBe(before);
    expect((await store.getTransaction(KEY))!.conflicts).toEqual([]);
  });

  it('keeps a published orphan success for 1 KES SUCCEEDED when a 1000 KES registration comes, and says the conflict', async () => {
    // Prepare: TransactionSucceeded (1 KES) is published before the registration.
    const { store, deps, ingestDeps } = setup();
    await ingestReport(ingestDeps, orphanSuccess('1'));

    // Act
    const result = await registerTransaction(deps, registration());

    // Assess: statuses only move forward; it never reads as paid what was only registered; the
    // disagreement is a conflict.
    expect(result.created).toBe(false);
    expect(result.transaction).toMatchObject({
      status: 'SUCCEEDED',
      registered: true,
      amount: { value: '1', currency: 'KES' },
      externalId: 'order-77',
    });
    const stored = (await store.getTransaction(KEY))!;
    expect(stored.conflicts.map((c) => c.kind)).toEqual(['AMOUNT_MISMATCH']);
    expect(stored.conflicts[0]!.detail).toContain('amount 1 reported, 1000 registered');
    const conflicts = store.published.filter((e) => e.metadata.type === 'TransactionConflict');
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]!.data).toMatchObject({
      status: 'SUCCEEDED',
      conflict: {
        kind: 'AMOUNT_MISMATCH',
        currentStatus: 'SUCCEEDED',
        reportedStatus: 'SUCCEEDED',
        reportedAmount: { value: '1', currency: 'KES' },
      },
    });
    expect(conflicts[0]!.metadata.origin).toBe('registration');
  });

  it('publishes one final event whatever the provider answers after a conflicting registration', async () => {
    // Prepare
    const { store, deps, ingestDeps } = setup();
    await ingestReport(ingestDeps, orphanSuccess('1'));
    await registerTransaction(deps, registration());

    // Act: the status API answers for the registered 1000 KES, then FAILED.
    await ingestReport(ingestDeps, {
      ...orphanSuccess('1000'),
      origin: 'poll',
      receiptId: undefined,
      authenticated: true,
      receivedAt: '2026-11-21T10:05:00.000Z',
    });
    await ingestReport(ingestDeps, {
      ...orphanSuccess('1000'),
      status: 'FAILED',
      reason: { code: 'REJECTED_BY_CUSTOMER', message: undefined, providerCode: '1032' },
      origin: 'poll',
      receiptId: undefined,
      authenticated: true,
      receivedAt: '2026-11-21T10:06:00.000Z',
    });

    // Assess
    const finals = store.published.filter((e) =>
      ['TransactionSucceeded', 'TransactionFailed'].includes(e.metadata.type),
    );
    expect(finals.map((e) => e.metadata.type)).toEqual(['TransactionSucceeded']);
    expect((await store.getTransaction(KEY))!.status).toBe('SUCCEEDED');
  });

  it('raises the adoption conflict only once when the same registration is repeated', async () => {
    // Prepare
    const { store, deps, ingestDeps } = setup();
    await ingestReport(ingestDeps, orphanSuccess('1'));
    await registerTransaction(deps, registration());

    // Act
    const repeat = await registerTransaction(deps, registration());

    // Assess
    expect(repeat.transaction.status).toBe('SUCCEEDED');
    expect(typesOf(store).filter((t) => t === 'TransactionConflict')).toHaveLength(1);
  });

  it('keeps a published orphan success paid by another MSISDN SUCCEEDED, with an MSISDN conflict', async () => {
    // Prepare
    const { store, deps, ingestDeps } = setup();
    await ingestReport(
      ingestDeps,
      orphanSuccess('1000', { party: { idType: 'MSISDN', id: '254711111111' } }),
    );

    // Act
    const result = await registerTransaction(deps, registration());

    // Assess
    expect(result.transaction.status).toBe('SUCCEEDED');
    expect((await store.getTransaction(KEY))!.conflicts.map((c) => c.kind)).toEqual(['MSISDN_MISMATCH']);
    expect(typesOf(store).filter((t) => t === 'TransactionConflict')).toHaveLength(1);
  });

  it('keeps a published unsigned orphan success without an amount SUCCEEDED when the registration names one, and says so', async () => {
    // Prepare: the same callback after the registration would be AMBIGUOUS (UNCONFIRMED); before it, the
    // account's rules settled it and TransactionSucceeded went out.
    const { store, deps, ingestDeps } = setup();
    await ingestReport(ingestDeps, orphanSuccess('1', { amount: undefined, authenticated: false }));

    // Act
    const result = await registerTransaction(deps, registration());

    // Assess
    expect(result.transaction).toMatchObject({ status: 'SUCCEEDED', amount: null });
    expect(typesOf(store).filter((t) => t === 'TransactionSucceeded')).toHaveLength(1);
    const stored = (await store.getTransaction(KEY))!;
    expect(stored.conflicts.map((c) => [c.kind, c.detail])).toEqual([
      [
        'AMOUNT_MISMATCH',
        'before registration, a callback reported SUCCEEDED with no amount reported, 1000 KES registered; the success stands as published',
      ],
    ]);
  });

  it('adopts a signed orphan success without an amount as SUCCEEDED', async () => {
    // Prepare
    const { deps, ingestDeps } = setup();
    await ingestReport(ingestDeps, orphanSuccess('1', { amount: undefined, authenticated: true }));

    // Act
    const result = await registerTransaction(deps, registration());

    // Assess
    expect(result.transaction).toMatchObject({
      status: 'SUCCEEDED',
      amount: { value: '1000', currency: 'KES' },
    });
  });

  it('adopts an orphan failure as it is', async () => {
    // Prepare
    const { deps, ingestDeps } = setup();
    await ingestReport(
      ingestDeps,
      orphanSuccess('1000', {
        status: 'FAILED',
        amount: undefined,
        reason: { code: 'REJECTED_BY_CUSTOMER', message: 'Request cancelled by user', providerCode: '1032' },
      }),
    );

    // Act
    const result = await registerTransaction(deps, registration());

    // Assess
    expect(result.transaction).toMatchObject({
      status: 'FAILED',
      registered: true,
      reason: { code: 'REJECTED_BY_CUSTOMER' },
    });
  });

  it.each([
    ['"__proto__"', JSON.parse('{"__proto__":{"polluted":true}}') as Record<string, unknown>],
    ['"constructor"', { constructor: { name: 'x' } }],
    ['""', { '': 'empty' }],
    ['"__proto__" nested', JSON.parse('{"a":{"__proto__":{"polluted":true}}}') as Record<string, unknown>],
  ])('refuses metadata with a %s member name', async (_name, metadata) => {
    // Prepare
    const { store, deps } = setup();

    // Act
    const run = registerTransaction(deps, registration({ metadata }));

    // Assess
    await expect(run).rejects.toBeInstanceOf(SchemaValidationError);
    expect(store.transactions.size).toBe(0);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('accepts metadata nested 16 levels deep and refuses 17', async () => {
    // Prepare
    const { deps } = setup();
    const nested = (levels: number) => {
      let value: Record<string, unknown> = { leaf: true };
      for (let i = 1; i < levels; i++) value = { a: value };
      return value;
    };

    // Act
    const deep = registerTransaction(deps, registration({ metadata: nested(17) }));
    const fine = registerTransaction(deps, registration({ metadata: nested(16) }));

    // Assess
    await expect(deep).rejects.toBeInstanceOf(SchemaValidationError);
    await expect(fine).resolves.toMatchObject({ created: true });
  });

  it('refuses metadata over 8 KiB as JSON', async () => {
    const { deps } = setup();
    await expect(
      registerTransaction(deps, registration({ metadata: { big: 'x'.repeat(9000) } })),
    ).rejects.toBeInstanceOf(SchemaValidationError);
  });

  it('names what is wrong: unknown provider or account, unknown kind, invalid reference, unknown member', async () => {
    // Prepare
    const { deps } = setup();

    // Act + Assess
    await expect(registerTransaction(deps, registration({ provider: 'nope' }))).rejects.toBeInstanceOf(
      UnknownAccountError,
    );
    await expect(registerTransaction(deps, registration({ account: 'other' }))).rejects.toBeInstanceOf(
      UnknownAccountError,
    );
    await expect(registerTransaction(deps, registration({ kind: 'refund' }))).rejects.toBeInstanceOf(
      UnknownKindError,
    );
    await expect(registerTransaction(deps, registration({ reference: 'has space' }))).rejects.toBeInstanceOf(
      InvalidReferenceError,
    );
    await expect(registerTransaction(deps, registration({ surprise: 1 }))).rejects.toBeInstanceOf(
      SchemaValidationError,
    );
    await expect(registerTransaction(deps, registration({ amount: '-5' }))).rejects.toBeInstanceOf(
      SchemaValidationError,
    );
  });

  it.each([
    ['190 digits', '9'.repeat(190)],
    ['16 digits before the point', '1234567890123456'],
    ['150 decimals', `1.${'1'.repeat(150)}`],
    ['5 decimals', '10.12345'],
    ['an exponent', '1e3'],
  ])('refuses an amount no wallet moves (%s) with a clear 400, storing nothing', async (_label, amount) => {
    // Prepare
    const { deps, store } = setup();

    // Act
    const refused = registerTransaction(deps, registration({ amount }));

    // Assess
    const error = await refused.catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SchemaValidationError);
    expect(JSON.stringify((error as SchemaValidationError).details)).toContain(
      'at most 15 digits before the point and 4 after',
    );
    expect(await store.getTransaction(KEY)).toBeUndefined();
  });

  it.each([
    ['15 digits', '999999999999999', '999999999999999'],
    ['4 decimals', '10.1234', '10.1234'],
    ['padding zeros past 4 decimals', '10.500000', '10.5'],
    ['a number', 250.5, '250.5'],
  ])('keeps an amount within bounds (%s), canonical', async (_label, amount, canonical) => {
    const { deps } = setup();
    const result = await registerTransaction(deps, registration({ amount }));
    expect(result.transaction.amount?.value).toBe(canonical);
  });

  it('normalizes a MoMo reference to lower case so registration and callbacks agree', async () => {
    // Prepare
    const { deps } = setup();

    // Act
    const result = await registerTransaction(deps, {
      provider: 'momo',
      account: 'demo',
      kind: 'requesttopay',
      reference: '6F1C2A9E-4B7D-4E2A-9C3B-1A2B3C4D5E6F',
      amount: 100,
      currency: 'EUR',
    });

    // Assess
    expect(result.transaction.reference).toBe('6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f');
    expect(result.transaction.amount).toEqual({ value: '100', currency: 'EUR' });
    expect(result.callbackUrl).toBe(
      'http://localhost:3000/v1/momo/demo/momo-path-secret-0123/requesttopay/6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f',
    );
  });
});

describe('registering a MoMo transaction checks the callback URL as MoMo will (MoMo Open API docs, Callback)', () => {
  const SECRET = 'momo-path-secret-0123';
  /** A relay at `publicBaseUrl` with one MoMo account of these settings. */
  function momoDeps(publicBaseUrl: string, account: Record<string, unknown>): ManagementDeps {
    return {
      config: parseConfig({
        publicBaseUrl,
        management: { bearerToken: 'a-long-enough-token' },
        accounts: { momo: { ug: { pathSecret: SECRET, ...account } } },
      }),
      store: new MemoryStore(),
      clock: { now: () => new Date(NOW) },
    };
  }
  const momoRegistration = {
    provider: 'momo',
    account: 'ug',
    kind: 'requesttopay',
    reference: '6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f',
    amount: '100',
    currency: 'EUR',
  };
  async function refusal(deps: ManagementDeps): Promise<Error> {
    return registerTransaction(deps, momoRegistration).then(
      () => new Error('expected a refusal'),
      (error: Error) => error,
    );
  }

  it("refuses (400 INVALID_CALLBACK_URL) a callback host that is not the account's providerCallbackHost", async () => {
    // Prepare
    const deps = momoDeps('https://relay.example.com', { providerCallbackHost: 'callbacks.example.com' });
    // Act
    const error = await refusal(deps);
    // Assess
    expect(error).toBeInstanceOf(InvalidCallbackUrlError);
    expect(error.message).toContain('relay.example.com');
    expect(error.message).toContain('accounts.momo.ug.providerCallbackHost (callbacks.example.com)');
    expect(
      await deps.store.getTransaction({
        provider: 'momo',
        account: 'ug',
        reference: momoRegistration.reference,
      }),
    ).toBeUndefined();
  });

  it('refuses a callback URL on an IP address, even without providerCallbackHost', async () => {
    // Prepare
    const deps = momoDeps('http://127.0.0.1:3000', {});
    // Act
    const error = await refusal(deps);
    // Assess
    expect(error).toBeInstanceOf(InvalidCallbackUrlError);
    expect(error.message).toMatch(/IP address \(127\.0\.0\.1\)/);
  });

  it('refuses a plain http callback URL for a production account (targetEnvironment not sandbox)', async () => {
    // Prepare
    const deps = momoDeps('http://relay.example.com', {
      targetEnvironment: 'mtnuganda',
      providerCallbackHost: 'relay.example.com',
    });
    // Act
    const error = await refusal(deps);
    // Assess
    expect(error).toBeInstanceOf(InvalidCallbackUrlError);
    expect(error.message).toContain('production account (targetEnvironment "mtnuganda")');
  });

  it('hands out the URL when host, address and scheme are what MoMo accepts', async () => {
    // Prepare: production over https on the API user's host; the sandbox over http (MoMo Open API docs: http only)
    const production = momoDeps('https://relay.example.com', {
      targetEnvironment: 'mtnuganda',
      providerCallbackHost: 'Relay.Example.com',
    });
    const sandbox = momoDeps('http://localhost:3000', { providerCallbackHost: 'localhost' });
    // Act
    const [prod, sand] = await Promise.all([
      registerTransaction(production, momoRegistration),
      registerTransaction(sandbox, momoRegistration),
    ]);
    // Assess
    expect(prod.callbackUrl).toBe(
      `https://relay.example.com/v1/momo/ug/${SECRET}/requesttopay/6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f`,
    );
    expect(sand.callbackUrl).toMatch(/^http:\/\/localhost:3000\/v1\/momo\/ug\//);
  });

  it('refuses a providerCallbackHost that is not a host name when the config loads', () => {
    for (const providerCallbackHost of ['https://relay.example.com', '10.0.0.1', 'relay.example.com:443']) {
      expect(() => momoDeps('https://relay.example.com', { providerCallbackHost })).toThrow(
        /providerCallbackHost/,
      );
    }
  });
});
