import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { airtelHash } from './hostile';
import type { TestRelay } from './relay';

/**
 * An Airtel payment on a test relay's `airtel/demo` account that succeeds by its signed callback: what the
 * delivery and destination tests start from (one TransactionSucceeded to deliver).
 */

/** Registers a payment of 5,000 UGX, `<prefix>-<8 hex>`, through the management API; answers its reference. */
export async function registerAirtelPayment(
  relay: Pick<TestRelay, 'admin'>,
  prefix: string,
): Promise<string> {
  const reference = `${prefix}-${randomUUID().slice(0, 8)}`;
  const registered = await relay.admin('POST', '/v1/transactions', {
    provider: 'airtel',
    account: 'demo',
    kind: 'payment',
    reference,
    amount: '5000',
    currency: 'UGX',
  });
  expect(registered.status).toBe(201);
  return reference;
}

/** Posts Airtel's sample success callback (test/fixtures/airtel/callback-ts.json) for `reference`, hashed with `callbackKey`. */
export function postAirtelSuccess(relay: Pick<TestRelay, 'request'>, callbackKey: string, reference: string) {
  const fixture = JSON.parse(
    readFileSync(new URL('../fixtures/airtel/callback-ts.json', import.meta.url), 'utf8'),
  ).transaction;
  const transaction = { ...fixture, id: reference };
  return relay.request(
    'POST',
    '/v1/airtel/demo/callback',
    JSON.stringify({ transaction, hash: airtelHash(transaction, callbackKey) }),
  );
}

/** Both, then the relay's stream published: answers the reference. */
export async function paidByAirtelCallback(
  relay: Pick<TestRelay, 'admin' | 'request' | 'flush'>,
  callbackKey: string,
  prefix: string,
): Promise<string> {
  const reference = await registerAirtelPayment(relay, prefix);
  await postAirtelSuccess(relay, callbackKey, reference);
  await relay.flush();
  return reference;
}
