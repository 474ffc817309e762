/**
 * The provider-facing use case, called directly (issue 32 item 5): what a routed, parsed callback becomes
 * (receipt, decision, events, the provider's ack), with no HTTP around it. The HTTP adapter's own job
 * (routing, path secret, guards, quarantine and the status of a refusal) is receive-callback.test.ts's.
 */
import { createHmac } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { acceptCallback, type CallbackDelivery } from '../../../shared/app/callbacks/receive-callback';
import { ForbiddenSourceError, UnauthorizedError } from '../../../shared/domain/errors';
import { findProvider } from '../../../shared/providers/registry';
import { accountKey } from '../../../shared/config/schema';
import {
  AIRTEL_KEY,
  callbackWorld,
  config,
  DARAJA_SECRET,
  fixture,
  MOMO_KEY,
  REFERENCE,
  SAFARICOM_IP,
  typesOf,
} from '../../helpers/callback-world';
import { driveTimers, useDrivenTimers } from '../../helpers/driven-timers';
import { registered } from '../../helpers/reports';

const hmacB64 = (key: string, text: string) => createHmac('sha256', key).update(text).digest('base64');

/** A callback as the inbound endpoint hands it over: routed (route picked by its path), parsed, timed. */
function delivery(
  where: { provider: string; account: string; route: string; params?: Record<string, string> },
  rawBody: string,
  overrides: Partial<CallbackDelivery> = {},
): CallbackDelivery {
  const provider = findProvider(where.provider)!;
  const account = config.accounts.get(accountKey(where.provider, where.account))!;
  const route = provider.routes.find((r) => r.name === where.route)!;
  const secret = account.pathSecret ? '/{secret}' : '';
  return {
    requestId: 'req-1',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    rawBody: Buffer.from(rawBody, 'utf8'),
    sourceIp: '198.51.100.7',
    receivedAt: new Date('2026-11-21T10:00:00.000Z'),
    provider,
    account,
    route,
    params: where.params ?? {},
    storedPath: `/v1/${where.provider}/${where.account}${secret}/${route.path}`,
    body: JSON.parse(rawBody) as Record<string, unknown>,
    // The driven clock's start (beforeEach): the provider's budget is counted on it, never on the machine's.
    started: 0,
    ...overrides,
  };
}

const momoCallback = () =>
  delivery(
    {
      provider: 'momo',
      account: 'demo',
      route: 'callback',
      params: { kind: 'requesttopay', referenceId: REFERENCE },
    },
    fixture('momo/requesttopay-successful.json'),
  );

const daraja = (route: string, body: string, sourceIp = SAFARICOM_IP) =>
  delivery({ provider: 'daraja', account: 'ke', route }, body, { sourceIp });

const airtel = (body: Record<string, unknown>) =>
  delivery({ provider: 'airtel', account: 'ug', route: 'callback' }, JSON.stringify(body));

describe('acceptCallback', () => {
  useDrivenTimers();
  beforeEach(driveTimers);

  it('stores the receipt, applies the report and returns the provider’s ack', async () => {
    // Prepare
    const { store, lines, services } = callbackWorld();
    await store.createTransaction(registered());

    // Act
    const outcome = await acceptCallback(services, momoCallback());

    // Assess
    const receipts = store.receiptsOf(MOMO_KEY);
    expect(receipts).toHaveLength(1);
    expect(outcome).toEqual({
      ack: expect.objectContaining({
        statusCode: 200,
        body: { received: true, duplicate: false, receiptId: receipts[0]!.receiptId },
      }),
      buffered: false,
    });
    expect((await store.getTransaction(MOMO_KEY))!.status).toBe('SUCCEEDED');
    expect(typesOf(store)).toEqual(['TransactionSucceeded']);
    expect(lines.find((l) => l.message === 'callback handled')?.fields[0]).toMatchObject({
      provider: 'momo',
      account: 'demo',
      route: 'callback',
      statusCode: 200,
    });
  });

  it('acknowledges a repeated delivery as a duplicate without a second event', async () => {
    // Prepare
    const { store, services } = callbackWorld();
    await store.createTransaction(registered());
    await acceptCallback(services, momoCallback());

    // Act
    const outcome = await acceptCallback(services, momoCallback());

    // Assess
    expect(outcome.ack.body).toMatchObject({ duplicate: true });
    expect(store.receiptsOf(MOMO_KEY)[0]!.deliveries).toBe(2);
    expect(typesOf(store)).toEqual(['TransactionSucceeded']);
  });

  it('throws the provider’s refusal as a named error and keeps nothing: quarantine is the adapter’s job', async () => {
    // Prepare
    const { store, lines, services } = callbackWorld();
    const transaction = { id: 'AT-ORDER-8', status_code: 'TS' };
    const forged = airtel({
      transaction,
      hash: hmacB64('wrong-key-0123456789', JSON.stringify({ transaction })),
    });

    // Act
    const refused = acceptCallback(services, forged);

    // Assess
    await expect(refused).rejects.toBeInstanceOf(UnauthorizedError);
    expect(store.receipts.size).toBe(0);
    expect(store.transactions.size).toBe(0);
    expect(store.quarantined).toHaveLength(0);
    expect(JSON.stringify(lines)).not.toContain(AIRTEL_KEY);
  });

  it('refuses a Daraja body from outside the allow-list with ForbiddenSourceError, before any write', async () => {
    // Prepare
    const { store, services } = callbackWorld();

    // Act
    const refused = acceptCallback(
      services,
      daraja('b2c-timeout', fixture('daraja/b2c-timeout-echo.json'), '203.0.113.9'),
    );

    // Assess
    await expect(refused).rejects.toBeInstanceOf(ForbiddenSourceError);
    expect(store.receipts.size).toBe(0);
  });

  it('answers a Daraja C2B validation through its decision and records it', async () => {
    // Prepare
    const { store, services } = callbackWorld();
    await store.putRecord({
      provider: 'daraja',
      account: 'ke',
      namespace: 'c2b-account',
      id: 'ACC-001',
      data: { active: true },
      createdAt: '2026-11-21T09:00:00.000Z',
    });

    // Act
    const outcome = await acceptCallback(
      services,
      daraja('c2b-validation', fixture('daraja/c2b-validation.json')),
    );

    // Assess
    expect(outcome.ack.body).toEqual({ ResultCode: '0', ResultDesc: 'Accepted' });
    expect(outcome.buffered).toBe(false);
    expect(typesOf(store)).toEqual(['C2BValidationDecided']);
  });

  it('stores a Daraja timeout echo with its SecurityCredential and echoed URLs (path secret inside) redacted', async () => {
    // Prepare: the echo carries the relay's own URLs, path secret inside.
    const { store, services } = callbackWorld();
    const echo = JSON.parse(fixture('daraja/b2c-timeout-echo.json')) as Record<string, string>;
    echo.QueueTimeOutURL = `https://relay.example.com/v1/daraja/ke/${DARAJA_SECRET}/b2c/timeout`;
    echo.ResultURL = `https://relay.example.com/v1/daraja/ke/${DARAJA_SECRET}/b2c/result`;

    // Act
    const outcome = await acceptCallback(services, daraja('b2c-timeout', JSON.stringify(echo)));

    // Assess
    expect(outcome.ack.statusCode).toBe(200);
    const [receipt] = store.receiptsOf({ provider: 'daraja', account: 'ke', reference: '10571-7910404-9' });
    expect(receipt!.body).not.toContain('REDACT-ME-c2VjcmV0');
    expect([...(receipt!.verification as { redacted: string[] }).redacted].sort()).toEqual([
      'QueueTimeOutURL',
      'ResultURL',
      'SecurityCredential',
    ]);
    expect(JSON.stringify(store)).not.toContain(DARAJA_SECRET);
  });

  it('parses only the signed part of an Airtel callback: an unsigned success code leaves a TA callback AMBIGUOUS', async () => {
    // Prepare
    const { store, services } = callbackWorld();
    const transaction = { id: 'AT-ORDER-7', message: 'Ambiguous', status_code: 'TA', airtel_money_id: 'MP1' };
    const hash = hmacB64(AIRTEL_KEY, JSON.stringify({ transaction }));

    // Act
    const outcome = await acceptCallback(
      services,
      airtel({ transaction, status: { result_code: 'DP00800001001' }, hash }),
    );

    // Assess
    expect(outcome.ack.statusCode).toBe(200);
    const key = { provider: 'airtel', account: 'ug', reference: 'AT-ORDER-7' };
    const tx = (await store.getTransaction(key))!;
    expect(tx.status).toBe('AMBIGUOUS');
    expect(tx.attributes.airtelResultCode).toBeUndefined();
    expect(store.receiptsOf(key)[0]!.verification).toMatchObject({
      hash: 'matched',
      recipe: 'stringify-transaction',
      ignoredUnsigned: ['status'],
    });
  });
});
