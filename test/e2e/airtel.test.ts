import { createHmac, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EventEnvelope } from '../../shared/domain/events';
import { awaitRecord } from '../helpers/hostile';
import { startTestRelay, type TestRelay } from '../helpers/relay';

const KEY = 'e2e-airtel-callback-key';
const CALLBACK = '/v1/airtel/demo/callback';

let relay: TestRelay;

beforeAll(async () => {
  relay = await startTestRelay({
    accounts: {
      airtel: {
        demo: { callbackKey: KEY, hashMode: 'enforce', country: 'UG', currency: 'UGX' },
        watch: { callbackKey: KEY, hashMode: 'log-only' },
      },
    },
  });
});

afterAll(async () => {
  await relay?.stop();
});

function fixtureTransaction(name: 'callback-ts' | 'callback-tf'): Record<string, string> {
  const url = new URL(`../fixtures/airtel/${name}.json`, import.meta.url);
  return JSON.parse(readFileSync(url, 'utf8')).transaction;
}

/** A callback as Airtel sends it with callback authentication on (stringify-without-hash). */
function signed(transaction: Record<string, string>, key = KEY): string {
  const hash = createHmac('sha256', key).update(JSON.stringify({ transaction })).digest('base64');
  return JSON.stringify({ transaction, hash });
}

async function register(reference: string, account = 'demo') {
  const response = await relay.admin('POST', '/v1/transactions', {
    provider: 'airtel',
    account,
    kind: 'payment',
    reference,
    amount: '5000',
    currency: 'UGX',
  });
  expect(response.status).toBe(201);
}

async function eventsOf(reference: string, account = 'demo'): Promise<EventEnvelope[]> {
  const events = await relay.flush();
  return events.filter((e) => e.metadata.correlationId === `airtel:${account}:${reference}`);
}

const uniqueId = (prefix: string) => `${prefix}-${randomUUID().slice(0, 8)}`;

describe('Airtel callbacks through the local relay', () => {
  it('turns a signed TS callback into one TransactionSucceeded carrying airtel_money_id', async () => {
    const reference = uniqueId('AT-TS');
    await register(reference);
    const transaction = { ...fixtureTransaction('callback-ts'), id: reference };

    const response = await relay.request('POST', CALLBACK, signed(transaction));

    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ received: true, duplicate: false });
    const events = await eventsOf(reference);
    expect(events.map((e) => e.metadata.type)).toEqual(['TransactionSucceeded']);
    expect(events[0]!.data).toMatchObject({
      provider: 'airtel',
      account: 'demo',
      kind: 'payment',
      reference,
      status: 'SUCCEEDED',
      providerTransactionId: 'MP210603.1234.A00001',
      amount: { value: '5000', currency: 'UGX' },
    });
  });

  it('turns a signed TF callback into TransactionFailed with the reason from the message', async () => {
    const reference = uniqueId('AT-TF');
    await register(reference);
    const transaction = { ...fixtureTransaction('callback-tf'), id: reference };

    const response = await relay.request('POST', CALLBACK, signed(transaction));

    expect(response.status).toBe(200);
    const events = await eventsOf(reference);
    expect(events.map((e) => e.metadata.type)).toEqual(['TransactionFailed']);
    expect(events[0]!.data).toMatchObject({
      status: 'FAILED',
      reason: {
        code: 'INSUFFICIENT_FUNDS',
        message: 'Transaction failed: insufficient balance',
        providerCode: 'TF',
      },
    });
  });

  it('turns a signed TA callback into TransactionAmbiguous', async () => {
    const reference = uniqueId('AT-TA');
    await register(reference);
    const transaction = { id: reference, message: 'Ambiguous', status_code: 'TA', airtel_money_id: '' };

    const response = await relay.request('POST', CALLBACK, signed(transaction));

    expect(response.status).toBe(200);
    const events = await eventsOf(reference);
    expect(events.map((e) => e.metadata.type)).toEqual(['TransactionAmbiguous']);
  });

  it('rejects a forged hash with 401, quarantines it, raises CallbackRejected and leaves the transaction alone', async () => {
    const reference = uniqueId('AT-FORGED');
    await register(reference);
    const transaction = { ...fixtureTransaction('callback-ts'), id: reference };
    const dayBefore = new Date().toISOString().slice(0, 10);

    const response = await relay.request('POST', CALLBACK, signed(transaction, 'forger-key'));

    expect(response.status).toBe(401);
    expect(response.body.error).toMatchObject({ code: 'UNAUTHORIZED' });
    // A refusal waits at most 1 s for its quarantine write (and the CallbackRejected in it): on a loaded
    // machine it lands after the answer.
    const entry = await awaitRecord(async () => {
      const days = [...new Set([dayBefore, new Date().toISOString().slice(0, 10)])];
      const quarantined = (await Promise.all(days.map((d) => relay.store.listQuarantine(d)))).flat();
      return quarantined.find((q) => String(q.body).includes(reference));
    });
    const events = await relay.flush();
    const rejected = events.filter((e) => e.metadata.type === 'CallbackRejected');
    expect(entry).toMatchObject({
      provider: 'airtel',
      account: 'demo',
      routeName: 'callback',
      httpStatus: 401,
      errorCode: 'UNAUTHORIZED',
    });
    expect(rejected.some((e) => e.data.quarantineId === entry!.id)).toBe(true);
    expect(await eventsOf(reference)).toEqual([]);
    const stored = await relay.admin('GET', `/v1/transactions/airtel/demo/${reference}`);
    expect(stored.body.transaction).toMatchObject({ status: 'PENDING', providerTransactionId: null });
    expect(stored.body.history.filter((h: { type: string }) => h.type === 'callback')).toEqual([]);
  });

  it('emits one event for a callback delivered twice', async () => {
    const reference = uniqueId('AT-DUP');
    await register(reference);
    const body = signed({ ...fixtureTransaction('callback-ts'), id: reference });

    const first = await relay.request('POST', CALLBACK, body);
    const second = await relay.request('POST', CALLBACK, body);

    expect([first.status, second.status]).toEqual([200, 200]);
    expect(second.body).toMatchObject({ duplicate: true });
    const events = await eventsOf(reference);
    expect(events.filter((e) => e.metadata.type === 'TransactionSucceeded')).toHaveLength(1);
  });

  it('stores the recipe that matched on the receipt', async () => {
    const reference = uniqueId('AT-RCPT');
    await register(reference);
    await relay.request('POST', CALLBACK, signed({ ...fixtureTransaction('callback-ts'), id: reference }));

    const stored = await relay.admin('GET', `/v1/transactions/airtel/demo/${reference}`);

    const callbacks = stored.body.history.filter((h: { type: string }) => h.type === 'callback');
    expect(callbacks).toHaveLength(1);
    expect(callbacks[0].verification).toMatchObject({
      hash: 'matched',
      mode: 'enforce',
      recipe: 'stringify-without-hash',
    });
  });

  it('accepts a mismatching hash in log-only mode, records the mismatch, and holds the unproven success as AMBIGUOUS (UNCONFIRMED)', async () => {
    const reference = uniqueId('AT-LOG');
    await register(reference, 'watch');

    const response = await relay.request(
      'POST',
      '/v1/airtel/watch/callback',
      signed({ ...fixtureTransaction('callback-ts'), id: reference }, 'other-key'),
    );

    expect(response.status).toBe(200);
    const stored = await relay.admin('GET', `/v1/transactions/airtel/watch/${reference}`);
    expect(stored.body.transaction).toMatchObject({ status: 'AMBIGUOUS', reason: { code: 'UNCONFIRMED' } });
    const callbacks = stored.body.history.filter((h: { type: string }) => h.type === 'callback');
    expect(callbacks[0].verification).toMatchObject({ hash: 'mismatch', mode: 'log-only' });
  });

  it('records a signed callback for an unregistered transaction.id as an orphan', async () => {
    const reference = uniqueId('AT-ORPHAN');

    const response = await relay.request(
      'POST',
      CALLBACK,
      signed({ ...fixtureTransaction('callback-ts'), id: reference }),
    );

    expect(response.status).toBe(200);
    const events = await eventsOf(reference);
    expect(events.map((e) => e.metadata.type)).toEqual(['CallbackOrphaned', 'TransactionSucceeded']);
  });

  it('answers GET on the callback route with 405', async () => {
    const response = await relay.request('GET', CALLBACK);

    expect(response.status).toBe(405);
  });
});
