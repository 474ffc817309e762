/**
 * A production C2B confirmation whose MSISDN is the SHA-256 of the number (test/fixtures/daraja/integrators,
 * source in its README), through the callback use case (acceptCallback) and the management view.
 */
import { readFileSync } from 'node:fs';
import { beforeEach, describe, expect, it } from 'vitest';
import { acceptCallback } from '../../../shared/app/callbacks/receive-callback';
import { toView } from '../../../shared/app/transactions/register-transaction';
import { accountKey } from '../../../shared/config/schema';
import { findProvider } from '../../../shared/providers/registry';
import { callbackWorld, config, SAFARICOM_IP } from '../../helpers/callback-world';
import { driveTimers, useDrivenTimers } from '../../helpers/driven-timers';

const raw = readFileSync(
  new URL('../../fixtures/daraja/integrators/c2b-confirmation-hashed-msisdn.json', import.meta.url),
  'utf8',
);
const HASH = '94c392c311d522da950619227b3361752a42042db7e1e699b26e628305c68a88';

function confirmation() {
  const provider = findProvider('daraja')!;
  const route = provider.routes.find((r) => r.name === 'c2b-confirmation')!;
  return {
    requestId: 'req-c2b',
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    rawBody: Buffer.from(raw, 'utf8'),
    sourceIp: SAFARICOM_IP,
    receivedAt: new Date('2026-11-21T10:00:00.000Z'),
    provider,
    account: config.accounts.get(accountKey('daraja', 'ke'))!,
    route,
    params: {},
    storedPath: `/v1/daraja/ke/{secret}/${route.path}`,
    body: JSON.parse(raw) as Record<string, unknown>,
    started: 0,
  };
}

describe('A Daraja C2B confirmation whose MSISDN arrives hashed', () => {
  useDrivenTimers();
  beforeEach(driveTimers);

  it('names the payer as a hashed number (MSISDN_SHA256), never as a number to notify', async () => {
    // Prepare
    const { store, services } = callbackWorld();

    // Act
    await acceptCallback(services, confirmation());

    // Assess: the success event's party says what the id is; the transaction records no MSISDN.
    const [succeeded] = store.published.filter((e) => e.metadata.type === 'TransactionSucceeded');
    expect(succeeded!.data).toMatchObject({
      reference: 'TK60708BHZ',
      amount: { value: '1', currency: 'KES' },
      party: { idType: 'MSISDN_SHA256', id: HASH },
    });
    const tx = await store.getTransaction({ provider: 'daraja', account: 'ke', reference: 'TK60708BHZ' });
    expect(tx?.msisdn).toBeUndefined();
    // What a person reads: not one hex digit of it (it is no safer than the number).
    expect(toView(tx!).party).toEqual({ idType: 'MSISDN_SHA256', id: 'sha256:(masked)' });
  });
});
