import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { applyBufferedCallback } from '../../../shared/app/buffer/apply-buffered-callback';
import type { BufferedMessage, RelayLogger } from '../../../shared/app/ports';
import { receiveCallback } from '../../../shared/http/callback-endpoint';
import { type RelayServices, scrubbingLogger } from '../../../shared/app/services';
import { parseConfig } from '../../../shared/config/load';
import { secretScrubber } from '../../../shared/config/secrets';
import type { EventEnvelope } from '../../../shared/domain/events';
import type { InboundRequest } from '../../../shared/http/types';
import { reversalStateOf } from '../../../shared/domain/reversal';
import { registered } from '../../helpers/reports';
import { allReceipts } from '../../helpers/receipts';

/*
 * Daraja's account balance and reversal results through the callback use case (in-memory store): acks,
 * one event per request whatever Daraja repeats, the link to the reversed payment, quarantine of bad bodies,
 * and the ingress buffer. The DynamoDB variant lives in test/integration/daraja-facts.test.ts.
 */

const SECRET = 'daraja-path-secret-0123456789';
const SAFARICOM_IP = '196.201.214.200';
const STK_REFERENCE = 'ws_CO_191220191020363925';
const RECEIPT = 'NLJ7RT61SV';

const config = parseConfig({
  management: { bearerToken: 'management-token-0123456789' },
  accounts: {
    daraja: { ke: { pathSecret: SECRET, shortCode: '600638', sourceIp: { allow: [`${SAFARICOM_IP}/32`] } } },
  },
});

function fixture(name: string): string {
  return readFileSync(new URL(`../../fixtures/daraja/${name}.json`, import.meta.url), 'utf8');
}

function setup() {
  const store = new MemoryStore();
  const warnings: string[] = [];
  const inner: RelayLogger = {
    debug() {},
    info() {},
    warn: (message) => void warnings.push(message),
    error() {},
  };
  const scrub = secretScrubber(config);
  const services: RelayServices = {
    config,
    store,
    clock: { now: () => new Date('2026-11-23T10:00:01.000Z') },
    log: scrubbingLogger(inner, scrub),
    scrub,
  };
  const post = (route: string, body: string, overrides: Partial<InboundRequest> = {}) =>
    receiveCallback(services, {
      requestId: 'req-1',
      method: 'POST',
      path: `/v1/daraja/ke/${SECRET}/${route}`,
      headers: { 'content-type': 'application/json' },
      query: {},
      rawBody: Buffer.from(body, 'utf8'),
      sourceIp: SAFARICOM_IP,
      receivedAt: new Date('2026-11-23T10:00:00.000Z'),
      ...overrides,
    });
  const events = (type?: string) =>
    store.published.filter((e) => !type || e.metadata.type === type) as EventEnvelope<
      Record<string, unknown>
    >[];
  return { store, services, post, events, warnings };
}

/** A paid STK transaction whose receipt the relay learnt from its callback. */
async function paidStk(w: ReturnType<typeof setup>) {
  await w.store.createTransaction(
    registered({
      key: { provider: 'daraja', account: 'ke', reference: STK_REFERENCE },
      kind: 'stk',
      amount: { value: '1', currency: 'KES' },
      externalId: undefined,
    }),
  );
  expect((await w.post('stk', fixture('stk-success'))).statusCode).toBe(200);
  expect(w.events('TransactionSucceeded')).toHaveLength(1);
}

describe('Daraja reversal results', () => {
  it('publishes TransactionReversed linked to the paid transaction by its receipt, which stays SUCCEEDED', async () => {
    // Prepare
    const w = setup();
    await paidStk(w);
    // Act
    const answer = await w.post('reversal/result', fixture('reversal-result-success'));
    // Assess
    expect(answer).toMatchObject({ statusCode: 200, body: { ResultCode: 0, ResultDesc: 'Accepted' } });
    const [reversed] = w.events('TransactionReversed');
    expect(reversed?.metadata).toMatchObject({
      correlationId: `daraja:ke:${STK_REFERENCE}`,
      origin: 'callback',
    });
    expect(reversed?.data).toMatchObject({
      provider: 'daraja',
      account: 'ke',
      kind: 'stk',
      reference: STK_REFERENCE,
      transactionStatus: 'SUCCEEDED',
      originalReceipt: RECEIPT,
      reversalReceipt: 'NLJ41HAY6Q',
      amount: { value: '1', currency: 'KES' },
      amountCheck: 'matches',
      completedTime: '20191219102820',
      originatorConversationId: '8521-4298025-1',
    });
    const tx = await w.store.getTransaction({ provider: 'daraja', account: 'ke', reference: STK_REFERENCE });
    expect(tx?.status).toBe('SUCCEEDED');
    const receipts = await allReceipts(w.store, {
      provider: 'daraja',
      account: 'ke',
      reference: STK_REFERENCE,
    });
    expect(receipts.map((r) => r.routeName)).toEqual(expect.arrayContaining(['stk', 'reversal-result']));
  });

  it('publishes one TransactionReversed when Daraja sends the result three times', async () => {
    // Prepare
    const w = setup();
    await paidStk(w);
    // Act
    for (let i = 0; i < 3; i++)
      expect((await w.post('reversal/result', fixture('reversal-result-success'))).statusCode).toBe(200);
    // Assess
    expect(w.events('TransactionReversed')).toHaveLength(1);
  });

  it('never publishes a reversal of more than the payment: a TransactionConflict (AMOUNT_MISMATCH) instead, and logs it', async () => {
    // Prepare
    const w = setup();
    await paidStk(w);
    const body = fixture('reversal-result-success').replace(
      '"Key":"Amount","Value":1.00',
      '"Key":"Amount","Value":250',
    );
    // Act
    await w.post('reversal/result', body);
    // Assess
    expect(w.events('TransactionReversed')).toEqual([]);
    const [conflict] = w.events('TransactionConflict');
    expect(conflict?.data.conflict).toMatchObject({
      kind: 'AMOUNT_MISMATCH',
      reportedAmount: { value: '250' },
    });
    expect(w.warnings).toContain('reversal amount differs from the transaction it reverses');
  });

  it('publishes one TransactionReversed per amount actually reversed when one payment is reversed under several request ids', async () => {
    // Prepare
    const w = setup();
    await paidStk(w);
    const under = (id: string, amount = '1.00') =>
      fixture('reversal-result-success')
        .replaceAll('8521-4298025-1', id)
        .replace('AG_20191219_00005797af5d7d75f652', `AG_${id}`)
        .replace('"Key":"Amount","Value":1.00', `"Key":"Amount","Value":${amount}`);
    // Act: three results for one payment of 1 KES, one of them 999,999 KES.
    for (const body of [under('req-1'), under('req-2'), under('req-3', '999999')])
      expect((await w.post('reversal/result', body)).statusCode).toBe(200);
    // Assess
    expect(w.events('TransactionReversed')).toHaveLength(1);
    const conflicts = w
      .events('TransactionConflict')
      .map((e) => e.data.conflict as { kind: string; evidence: unknown[] });
    expect(conflicts).toHaveLength(2);
    expect(conflicts.every((c) => c.kind === 'STATUS' && c.evidence.length === 2)).toBe(true);
  });

  it('raises a conflict when one request id reports contradicting results (a ReversalFailed cannot hide a reversal)', async () => {
    // Prepare: a (forged) failure first, under the success's request id.
    const w = setup();
    await paidStk(w);
    const failureFirst = fixture('reversal-result-failure')
      .replaceAll('8521-4298025-2', '8521-4298025-1')
      .replace('AG_20191219_00005797af5d7d75f653', 'AG_20191219_00005797af5d7d75f652');
    // Act
    await w.post('reversal/result', failureFirst);
    await w.post('reversal/result', fixture('reversal-result-success'));
    // Assess
    expect(w.events('ReversalFailed')).toHaveLength(1);
    const [conflict] = w.events('TransactionConflict');
    expect(conflict?.data.conflict).toMatchObject({ kind: 'STATUS' });
    expect(
      (conflict?.data.conflict as { evidence: { claim: string }[] }).evidence.map((e) => e.claim),
    ).toEqual(['FAILED', 'SUCCEEDED']);
  });

  it('links a partial reversal of a C2B payment (by its TransID) and flags the amount as differing', async () => {
    // Prepare
    const w = setup();
    expect((await w.post('c2b/confirmation', fixture('c2b-confirmation'))).statusCode).toBe(200);
    const body = fixture('reversal-result-success').replace('"Value":"NLJ7RT61SV"', '"Value":"RKTQDM7W6S"');
    // Act
    await w.post('reversal/result', body);
    // Assess
    expect(w.events('TransactionReversed')[0]?.data).toMatchObject({
      kind: 'c2b',
      reference: 'RKTQDM7W6S',
      amount: { value: '1', currency: 'KES' },
      amountCheck: 'differs',
    });
  });

  it('publishes a reversal of a receipt the relay never saw without a transaction, and creates none', async () => {
    // Prepare
    const w = setup();
    // Act
    await w.post('reversal/result', fixture('reversal-result-success'));
    // Assess
    const [reversed] = w.events('TransactionReversed');
    expect(reversed?.data).toMatchObject({ reference: null, kind: null, amountCheck: 'unknown' });
    expect(reversed?.metadata.correlationId).toBe('daraja:ke:8521-4298025-1');
    expect(
      await w.store.getTransaction({ provider: 'daraja', account: 'ke', reference: RECEIPT }),
    ).toBeUndefined();
  });

  it('publishes ReversalFailed with the mapped reason, linked through the echoed Occasion', async () => {
    // Prepare
    const w = setup();
    await paidStk(w);
    // Act
    await w.post('reversal/result', fixture('reversal-result-failure'));
    // Assess
    expect(w.events('ReversalFailed')[0]?.data).toMatchObject({
      reference: STK_REFERENCE,
      transactionStatus: 'SUCCEEDED',
      originalReceipt: null,
      reason: {
        code: 'DUPLICATE',
        message: 'The transaction has already been reversed.',
        providerCode: 'R000001',
      },
    });
    expect(w.events('TransactionReversed')).toEqual([]);
  });

  it('publishes ReversalAmbiguous for a queue timeout, linked by the echoed TransactionID', async () => {
    // Prepare
    const w = setup();
    await paidStk(w);
    // Act
    await w.post('reversal/timeout', fixture('reversal-timeout-echo'));
    await w.post('reversal/timeout', fixture('reversal-timeout-echo'));
    // Assess
    const ambiguous = w.events('ReversalAmbiguous');
    expect(ambiguous).toHaveLength(1);
    expect(ambiguous[0]?.data).toMatchObject({
      reference: STK_REFERENCE,
      originalReceipt: RECEIPT,
      reason: { code: 'TIMED_OUT', providerCode: 'QUEUE_TIMEOUT' },
    });
    expect(JSON.stringify(w.store.published)).not.toContain('EsJocK7');
  });

  it('publishes the result that follows a queue timeout, and nothing for a timeout that follows the result', async () => {
    // Prepare
    const w = setup();
    await paidStk(w);
    // Two partial reversals of half the payment each (together never more than it).
    const result = JSON.parse(
      fixture('reversal-result-success').replace('"Key":"Amount","Value":1.00', '"Key":"Amount","Value":0.5'),
    ) as { Result: Record<string, unknown> };
    result.Result.OriginatorConversationID = '8521-4298025-3';
    const secondRequest = {
      ...result.Result,
      OriginatorConversationID: '8521-4298025-4',
      ConversationID: 'AG_20191219_00005797af5d7d75f654',
    };
    const secondTimeout = fixture('reversal-timeout-echo').replace('8521-4298025-3', '8521-4298025-4');
    // Act
    await w.post('reversal/timeout', fixture('reversal-timeout-echo'));
    await w.post('reversal/result', JSON.stringify(result));
    await w.post('reversal/result', JSON.stringify({ Result: secondRequest }));
    await w.post('reversal/timeout', secondTimeout);
    // Assess
    expect(w.events('ReversalAmbiguous').map((e) => e.data.originatorConversationId)).toEqual([
      '8521-4298025-3',
    ]);
    expect(w.events('TransactionReversed').map((e) => e.data.originatorConversationId)).toEqual([
      '8521-4298025-3',
      '8521-4298025-4',
    ]);
  });

  it('refuses a success without OriginalTransactionID with 400, quarantined and raised as CallbackRejected', async () => {
    // Prepare
    const w = setup();
    const body = fixture('reversal-result-success').replace('"OriginalTransactionID"', '"Something"');
    // Act
    const answer = await w.post('reversal/result', body);
    // Assess
    expect(answer.statusCode).toBe(400);
    expect(w.events('CallbackRejected')[0]?.data).toMatchObject({
      route: 'reversal-result',
      httpStatus: 400,
    });
    expect(w.store.quarantined).toHaveLength(1);
    // The operator reads why in the quarantine, and the ids to find the payment by.
    expect(w.store.quarantined[0]?.message).toContain(
      'names no OriginalTransactionID (which payment?): no reversal recorded',
    );
    expect(w.store.quarantined[0]?.message).toContain('OriginatorConversationID 8521-4298025-1');
    expect(w.events('TransactionReversed')).toEqual([]);
  });
});

/** A reversal result of the paid STK payment under its own request id, for `amount` KES. */
function reversalOf(id: string, amount: string): string {
  return fixture('reversal-result-success')
    .replaceAll('8521-4298025-1', id)
    .replace('AG_20191219_00005797af5d7d75f652', `AG_${id}`)
    .replace('"TransactionID":"NLJ41HAY6Q"', `"TransactionID":"R-${id}"`)
    .replace('"Key":"Amount","Value":1.00', `"Key":"Amount","Value":${amount}`);
}

const STK_KEY = { provider: 'daraja', account: 'ke', reference: STK_REFERENCE };

describe('A reversed payment shows its reversals', () => {
  it('carries the reversal on the transaction (amount, when, evidence, net amount), which stays SUCCEEDED with TransactionReversed on its timeline', async () => {
    // Prepare
    const w = setup();
    await paidStk(w);
    // Act
    await w.post('reversal/result', fixture('reversal-result-success'));
    // Assess
    const tx = await w.store.getTransaction(STK_KEY);
    const [published] = w.events('TransactionReversed');
    expect(tx?.status).toBe('SUCCEEDED');
    expect(tx?.reversals).toEqual([
      {
        id: '8521-4298025-1',
        amount: { value: '1', currency: 'KES' },
        at: '2026-11-23T10:00:00.000Z',
        reversalReceipt: 'NLJ41HAY6Q',
        eventId: published?.metadata.id,
        evidence: expect.objectContaining({
          claim: 'SUCCEEDED',
          providerCode: '0',
          description: expect.stringContaining('The service request is processed successfully.'),
          receiptId: expect.any(String),
        }),
      },
    ]);
    expect(reversalStateOf(tx!)).toEqual({
      state: 'full',
      amountReversed: '1',
      netAmount: '0',
      reversals: 1,
    });
    expect(published?.data.netAmount).toEqual({ value: '0', currency: 'KES' });
    expect(tx?.events.map((e) => e.type)).toEqual(['TransactionSucceeded', 'TransactionReversed']);
    expect(tx?.events.at(-1)?.id).toBe(published?.metadata.id);
  });

  it('counts a reversal result Daraja repeats once: the same request applied twice is one reversal', async () => {
    // Prepare
    const w = setup();
    await paidStk(w);
    // Act
    for (let i = 0; i < 3; i++) await w.post('reversal/result', reversalOf('req-1', '0.4'));
    // Assess
    const tx = await w.store.getTransaction(STK_KEY);
    expect(tx?.reversals?.map((r) => r.id)).toEqual(['req-1']);
    expect(reversalStateOf(tx!)).toMatchObject({ state: 'partial', amountReversed: '0.4', netAmount: '0.6' });
    expect(tx?.events.filter((e) => e.type === 'TransactionReversed')).toHaveLength(1);
  });

  it('accumulates partial reversals until nothing is left, with exact decimals (0.1 + 0.2 + 0.7 of 1 KES)', async () => {
    // Prepare
    const w = setup();
    await paidStk(w);
    // Act
    await w.post('reversal/result', reversalOf('req-1', '0.1'));
    const afterFirst = reversalStateOf((await w.store.getTransaction(STK_KEY))!);
    await w.post('reversal/result', reversalOf('req-2', '0.2'));
    await w.post('reversal/result', reversalOf('req-3', '0.7'));
    // Assess
    expect(afterFirst).toMatchObject({ state: 'partial', amountReversed: '0.1', netAmount: '0.9' });
    const tx = await w.store.getTransaction(STK_KEY);
    expect(reversalStateOf(tx!)).toEqual({
      state: 'full',
      amountReversed: '1',
      netAmount: '0',
      reversals: 3,
    });
    expect(w.events('TransactionReversed').map((e) => e.data.netAmount)).toEqual([
      { value: '0.9', currency: 'KES' },
      { value: '0.7', currency: 'KES' },
      { value: '0', currency: 'KES' },
    ]);
    expect(tx?.status).toBe('SUCCEEDED');
  });

  it('does not count a reversal that would go beyond the payment: its conflict is on the timeline, not in the reversals', async () => {
    // Prepare
    const w = setup();
    await paidStk(w);
    await w.post('reversal/result', reversalOf('req-1', '0.5'));
    // Act
    await w.post('reversal/result', reversalOf('req-2', '0.8'));
    // Assess
    const tx = await w.store.getTransaction(STK_KEY);
    expect(tx?.reversals?.map((r) => r.id)).toEqual(['req-1']);
    expect(reversalStateOf(tx!)).toMatchObject({ state: 'partial', netAmount: '0.5' });
    const [conflict] = w.events('TransactionConflict');
    expect(tx?.events.map((e) => e.id)).toContain(conflict?.metadata.id);
  });

  it('puts ReversalFailed and ReversalAmbiguous about the payment on its timeline, and counts no reversal', async () => {
    // Prepare
    const w = setup();
    await paidStk(w);
    // Act
    await w.post('reversal/result', fixture('reversal-result-failure'));
    await w.post('reversal/timeout', fixture('reversal-timeout-echo'));
    // Assess
    const tx = await w.store.getTransaction(STK_KEY);
    expect(tx?.events.map((e) => e.type)).toEqual([
      'TransactionSucceeded',
      'ReversalFailed',
      'ReversalAmbiguous',
    ]);
    expect(tx?.reversals).toBeUndefined();
    expect(reversalStateOf(tx!)).toBeUndefined();
  });

  it('keeps a reversal of a receipt the relay never saw a fact: no transaction is created or changed', async () => {
    // Prepare
    const w = setup();
    await paidStk(w);
    const before = await w.store.getTransaction(STK_KEY);
    const unknown = fixture('reversal-result-success').replace(
      '"Value":"NLJ7RT61SV"',
      '"Value":"NOSUCHRCPT"',
    );
    // Act
    await w.post('reversal/result', unknown);
    // Assess
    expect(w.events('TransactionReversed')[0]?.data).toMatchObject({ reference: null, netAmount: null });
    expect(await w.store.getTransaction(STK_KEY)).toEqual(before);
    expect(
      await w.store.getTransaction({ provider: 'daraja', account: 'ke', reference: 'NOSUCHRCPT' }),
    ).toBeUndefined();
  });
});

describe('Daraja facts: what a hostile or odd body cannot do', () => {
  it("links a reversal success only by Daraja's OriginalTransactionID, never by an Occasion naming another payment", async () => {
    // Prepare
    const w = setup();
    await paidStk(w);
    const body = JSON.parse(fixture('reversal-result-success')) as { Result: Record<string, any> };
    body.Result.ResultParameters.ResultParameter[3].Value = 'QQQ1111111';
    body.Result.ReferenceData = { ReferenceItem: [{ Key: 'Occasion', Value: STK_REFERENCE }] };
    // Act
    await w.post('reversal/result', JSON.stringify(body));
    // Assess
    expect(w.events('TransactionReversed')[0]?.data).toMatchObject({
      reference: null,
      originalReceipt: 'QQQ1111111',
      amountCheck: 'unknown',
    });
  });

  it('does not link a reversal to a transaction that knows another receipt than the one it names', async () => {
    // Prepare
    const w = setup();
    await paidStk(w);
    const echo = fixture('reversal-timeout-echo').replaceAll(RECEIPT, STK_REFERENCE);
    // Act
    await w.post('reversal/timeout', echo);
    // Assess
    expect(w.events('ReversalAmbiguous')[0]?.data).toMatchObject({
      reference: null,
      originalReceipt: STK_REFERENCE,
    });
  });

  it.each([
    ['an id of 300 characters', 'O'.repeat(300)],
    ['an id with control characters', 'abc\u0001\u001b[31m'],
  ])('refuses a linked reversal whose request has %s with 400, storing nothing', async (_what, id) => {
    // Prepare
    const w = setup();
    await paidStk(w);
    const receiptsBefore = await allReceipts(w.store, {
      provider: 'daraja',
      account: 'ke',
      reference: STK_REFERENCE,
    });
    const body = JSON.parse(fixture('reversal-result-success')) as { Result: Record<string, unknown> };
    body.Result.OriginatorConversationID = id;
    // Act
    const answer = await w.post('reversal/result', JSON.stringify(body));
    // Assess
    expect(answer.statusCode).toBe(400);
    expect(answer.headers?.['x-relay-error'] ?? (answer.body as { error?: string }).error).toBeDefined();
    expect(w.events('TransactionReversed')).toEqual([]);
    expect(
      await allReceipts(w.store, { provider: 'daraja', account: 'ke', reference: STK_REFERENCE }),
    ).toHaveLength(receiptsBefore.length);
  });

  it('refuses a balance whose account names are not names (oversized) with 400 before storing anything', async () => {
    // Prepare
    const w = setup();
    const accounts = Array.from(
      { length: 50 },
      (_, i) => `${'N'.repeat(5150)}${i}|KES|1.00|1.00|0.00|0.00`,
    ).join('&');
    const body = JSON.parse(fixture('balance-result-success')) as { Result: Record<string, any> };
    body.Result.ResultParameters.ResultParameter[0].Value = accounts;
    // Act
    const answer = await w.post('balance/result', JSON.stringify(body));
    // Assess
    expect(answer.statusCode).toBe(400);
    expect(w.events('AccountBalanceReported')).toEqual([]);
  });

  it('keeps at most 1024 characters of a ResultDesc in the event', async () => {
    // Prepare
    const w = setup();
    const body = fixture('balance-result-failure').replace(
      'The initiator information is invalid.',
      'x'.repeat(100_000),
    );
    // Act
    await w.post('balance/result', body);
    // Assess
    expect((w.events('AccountBalanceFailed')[0]?.data.reason as { message: string }).message).toHaveLength(
      1024,
    );
  });

  it('publishes nothing for a timeout naming the request only by the ConversationID its result carried', async () => {
    // Prepare
    const w = setup();
    await paidStk(w);
    await w.post('reversal/result', fixture('reversal-result-success'));
    await w.post('balance/result', fixture('balance-result-success'));
    // Act
    await w.post(
      'reversal/timeout',
      JSON.stringify({
        Result: { ResultCode: 'SFC_IC0003', ConversationID: 'AG_20191219_00005797af5d7d75f652' },
      }),
    );
    await w.post(
      'balance/timeout',
      JSON.stringify({ Result: { ResultCode: 1, ConversationID: 'AG_20200206_00005e091a8ec6b9eac5' } }),
    );
    await w.post(
      'balance/result',
      fixture('balance-result-success').replace('"OriginatorConversationID":"16917-22577599-3",', ''),
    );
    // Assess
    expect(w.events('ReversalAmbiguous')).toEqual([]);
    expect(w.events('AccountBalanceFailed')).toEqual([]);
    expect(w.events('AccountBalanceReported')).toHaveLength(1);
  });

  it("refuses another operation's queue-timeout echo on the reversal and balance routes", async () => {
    // Prepare
    const w = setup();
    await paidStk(w);
    const b2cEcho = JSON.stringify({
      CommandID: 'BusinessPayment',
      OriginatorConversationID: 'b2c-oc-1',
      Amount: 10,
      PartyA: '600638',
      TransactionID: RECEIPT,
    });
    // Act
    const reversal = await w.post('reversal/timeout', b2cEcho);
    const balance = await w.post('balance/timeout', fixture('reversal-timeout-echo'));
    // Assess
    expect([reversal.statusCode, balance.statusCode]).toEqual([400, 400]);
    expect(w.events('ReversalAmbiguous')).toEqual([]);
    expect(w.events('AccountBalanceFailed')).toEqual([]);
  });

  it('keeps a credential sent as a {Key, Value} reference item out of the stored receipt', async () => {
    // Prepare
    const w = setup();
    const notice = {
      Result: {
        ResultCode: '1037',
        OriginatorConversationID: 'L1',
        ReferenceData: { ReferenceItem: [{ Key: 'SecurityCredential', Value: 'SUPERSECRET2' }] },
      },
    };
    // Act
    await w.post('reversal/timeout', JSON.stringify(notice));
    // Assess
    const receipts = await allReceipts(w.store, { provider: 'daraja', account: 'ke', reference: 'L1' });
    expect(receipts).toHaveLength(1);
    expect(JSON.stringify([...w.store.receipts.values()])).not.toContain('SUPERSECRET2');
  });
});

describe('Daraja account balance results', () => {
  it("publishes AccountBalanceReported with every account of Daraja's string parsed", async () => {
    // Prepare
    const w = setup();
    // Act
    const answer = await w.post('balance/result', fixture('balance-result-success'));
    // Assess
    expect(answer.body).toEqual({ ResultCode: 0, ResultDesc: 'Accepted' });
    const [reported] = w.events('AccountBalanceReported');
    expect(reported?.metadata.correlationId).toBe('daraja:ke:16917-22577599-3');
    expect(reported?.data.accounts).toEqual([
      {
        name: 'Working Account',
        currency: 'KES',
        current: '700000',
        available: '700000',
        reserved: '0',
        uncleared: '0',
      },
      { name: 'Float Account', currency: 'KES', current: '0', available: '0', reserved: '0', uncleared: '0' },
      {
        name: 'Utility Account',
        currency: 'KES',
        current: '228037',
        available: '228037',
        reserved: '0',
        uncleared: '0',
      },
      {
        name: 'Charges Paid Account',
        currency: 'KES',
        current: '-1540',
        available: '-1540',
        reserved: '0',
        uncleared: '0',
      },
      {
        name: 'Organization Settlement Account',
        currency: 'KES',
        current: '0',
        available: '0',
        reserved: '0',
        uncleared: '0',
      },
    ]);
    expect(reported?.data.completedTime).toBe('20200109125710');
    expect(reported?.data).not.toHaveProperty('reference');
  });

  it('publishes one event per balance request, however often the result comes', async () => {
    // Prepare
    const w = setup();
    // Act
    await w.post('balance/result', fixture('balance-result-success'));
    await w.post('balance/result', fixture('balance-result-success'));
    // Assess
    expect(w.events('AccountBalanceReported')).toHaveLength(1);
  });

  it('publishes AccountBalanceFailed for a refused query and for a queue timeout without ids', async () => {
    // Prepare
    const w = setup();
    // Act
    await w.post('balance/result', fixture('balance-result-failure'));
    await w.post('balance/timeout', fixture('balance-timeout-echo'));
    await w.post('balance/timeout', fixture('balance-timeout-echo'));
    // Assess
    const failed = w.events('AccountBalanceFailed').map((e) => e.data.reason);
    expect(w.events('AccountBalanceFailed').map((e) => e.data.reasonDetail)).toEqual([
      'INVALID_INITIATOR',
      undefined,
    ]);
    expect(failed).toEqual([
      { code: 'NOT_ALLOWED', message: 'The initiator information is invalid.', providerCode: '2001' },
      {
        code: 'TIMED_OUT',
        message: 'the request timed out in the Daraja queue',
        providerCode: 'QUEUE_TIMEOUT',
      },
    ]);
  });

  it('refuses a balance string that is not Name|Currency|Amount with 400 and publishes nothing', async () => {
    // Prepare
    const w = setup();
    const body = fixture('balance-result-success').replace(
      'Float Account|KES|0.00',
      'Float Account|KES|lots',
    );
    // Act
    const answer = await w.post('balance/result', body);
    // Assess
    expect(answer.statusCode).toBe(400);
    expect(w.events('AccountBalanceReported')).toEqual([]);
    expect(w.store.quarantined).toHaveLength(1);
  });

  it('refuses a balance result from outside the source allow-list with 403', async () => {
    // Prepare
    const w = setup();
    // Act
    const answer = await w.post('balance/result', fixture('balance-result-success'), {
      sourceIp: '203.0.113.9',
    });
    // Assess
    expect(answer.statusCode).toBe(403);
    expect(w.events('AccountBalanceReported')).toEqual([]);
  });
});

describe('Daraja facts and the ingress buffer', () => {
  it('acks a reversal result while the store is down, and publishes it once when the buffer is applied', async () => {
    // Prepare
    const w = setup();
    await paidStk(w);
    const buffered: BufferedMessage[] = [];
    w.services.ingressBuffer = { accept: async (m) => (buffered.push(m), { id: `m${buffered.length}` }) };
    w.store.failure = 'error';
    // Act
    const answer = await w.post('reversal/result', fixture('reversal-result-success'));
    w.store.failure = 'none';
    for (const message of buffered)
      await applyBufferedCallback(w.services, JSON.parse(JSON.stringify(message)));
    for (const message of buffered)
      await applyBufferedCallback(w.services, JSON.parse(JSON.stringify(message)));
    // Assess
    expect(answer.statusCode).toBe(200);
    expect(answer.headers?.['x-relay-buffered']).toBe('true');
    const reversed = w.events('TransactionReversed');
    expect(reversed).toHaveLength(1);
    expect(reversed[0]?.metadata.origin).toBe('buffer');
    expect(reversed[0]?.data.reference).toBe(STK_REFERENCE);
  });
});
