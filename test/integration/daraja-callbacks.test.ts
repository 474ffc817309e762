import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../../shared/config/load';
import type { RelayServices } from '../../shared/app/services';
import type { EventEnvelope } from '../../shared/domain/events';
import { knownAccountRecord } from '../../shared/providers/daraja/c2b-question';
import { receiveCallback } from '../../shared/http/callback-endpoint';
import type { InboundRequest } from '../../shared/http/types';
import { createIntegrationRelay } from '../helpers/integration';
import { allReceipts } from '../helpers/receipts';

const config = parseConfig({
  management: { bearerToken: 'integration-token' },
  accounts: {
    daraja: {
      demo: { shortCode: '600638' },
      known: { c2b: { knownAccounts: true } },
    },
  },
});
const fixture = (name: string): any =>
  JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/daraja', name), 'utf8'));

let relay: Awaited<ReturnType<typeof createIntegrationRelay>>;
let table: Awaited<ReturnType<typeof createIntegrationRelay>>['table'];
let services: RelayServices;

beforeAll(async () => {
  relay = await createIntegrationRelay(config);
  ({ table, services } = relay);
});
afterAll(async () => {
  await relay.stop();
});

let n = 0;
const transId = () => `RKT${Date.now().toString(36).toUpperCase()}${++n}`;

function post(path: string, body: unknown, sourceIp = '196.201.214.206'): InboundRequest {
  return {
    requestId: 'test',
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json' },
    query: {},
    rawBody: Buffer.from(JSON.stringify(body)),
    sourceIp,
    receivedAt: new Date(),
  };
}

async function publishedFor(reference: string): Promise<EventEnvelope[]> {
  return (await relay.publish()).filter((e) => (e.data as { reference?: string }).reference === reference);
}

describe('Daraja callbacks against DynamoDB Local', () => {
  it('turns repeated and concurrent confirmations of one TransID into one transaction and one TransactionSucceeded', async () => {
    // Prepare
    const id = transId();
    const body = { ...fixture('c2b-confirmation.json'), TransID: id };
    // Act
    const answers = await Promise.all(
      Array.from({ length: 8 }, () =>
        receiveCallback(services, post('/v1/daraja/demo/c2b/confirmation', body)),
      ),
    );
    const repeat = await receiveCallback(services, post('/v1/daraja/demo/c2b/confirmation', body));
    const events = await publishedFor(id);
    const tx = await table.store.getTransaction({ provider: 'daraja', account: 'demo', reference: id });
    // Assess
    expect([...answers, repeat].every((a) => a.statusCode === 200)).toBe(true);
    expect(repeat.body).toEqual({ ResultCode: 0, ResultDesc: 'Success' });
    expect(events.map((e) => e.metadata.type)).toEqual(['TransactionSucceeded']);
    expect(tx).toMatchObject({ kind: 'c2b', status: 'SUCCEEDED', amount: { value: '10', currency: 'KES' } });
    expect(tx?.transitions).toHaveLength(1);
  });

  it('emits C2BValidationDecided once for a validation delivered twice, and stores the request before answering', async () => {
    // Prepare
    const id = transId();
    const body = { ...fixture('c2b-validation.json'), TransID: id };
    // Act
    const first = await receiveCallback(services, post('/v1/daraja/demo/c2b/validation', body));
    const second = await receiveCallback(services, post('/v1/daraja/demo/c2b/validation', body));
    const events = await publishedFor(id);
    const receipts = await allReceipts(table.store, { provider: 'daraja', account: 'demo', reference: id });
    // Assess
    expect(first.body).toEqual({ ResultCode: '0', ResultDesc: 'Accepted' });
    expect(second.body).toEqual({ ResultCode: '0', ResultDesc: 'Accepted' });
    expect(events.map((e) => e.metadata.type)).toEqual(['C2BValidationDecided']);
    expect(receipts).toEqual([expect.objectContaining({ routeName: 'c2b-validation', deliveries: 2 })]);
  });

  it('accepts a BillRefNumber found among the known accounts (any case) and rejects an unknown one with C2B00012', async () => {
    // Prepare
    await table.store.putRecord(knownAccountRecord({ account: 'known', billRef: 'ACC-001', active: true }));
    const knownBody = { ...fixture('c2b-validation.json'), TransID: transId(), BillRefNumber: 'acc-001' };
    const unknownBody = { ...fixture('c2b-validation.json'), TransID: transId(), BillRefNumber: 'ACC-404' };
    // Act
    const known = await receiveCallback(services, post('/v1/daraja/known/c2b/validation', knownBody));
    const unknown = await receiveCallback(services, post('/v1/daraja/known/c2b/validation', unknownBody));
    const decided = await publishedFor(unknownBody.TransID);
    // Assess
    expect(known.body).toEqual({ ResultCode: '0', ResultDesc: 'Accepted' });
    expect(unknown.body).toEqual({ ResultCode: 'C2B00012', ResultDesc: 'Rejected' });
    expect(decided[0]?.data).toMatchObject({ rule: 'known-account', deadlineApplied: false });
  });

  it('links a confirmation to its validation and flags an amount that differs from the validated one', async () => {
    // Prepare
    const id = transId();
    await receiveCallback(
      services,
      post('/v1/daraja/demo/c2b/validation', { ...fixture('c2b-validation.json'), TransID: id }),
    );
    // Act
    await receiveCallback(
      services,
      post('/v1/daraja/demo/c2b/confirmation', {
        ...fixture('c2b-confirmation.json'),
        TransID: id,
        TransAmount: '1000',
      }),
    );
    const events = await publishedFor(id);
    const tx = await table.store.getTransaction({ provider: 'daraja', account: 'demo', reference: id });
    // Assess
    expect(events.map((e) => e.metadata.type)).toEqual(['C2BValidationDecided', 'TransactionConflict']);
    expect(tx).toMatchObject({ status: 'PENDING', attributes: { ValidationDecision: 'accept' } });
  });

  it('never lets the SecurityCredential of a timeout echo reach the table, accepted or refused', async () => {
    // Prepare
    const accepted = { ...fixture('b2c-timeout-echo.json'), OriginatorConversationID: `oc-${transId()}` };
    const refused = { ...fixture('b2c-timeout-echo.json'), OriginatorConversationID: `oc-${transId()}` };
    // Act
    const ok = await receiveCallback(services, post('/v1/daraja/demo/b2c/timeout', accepted));
    const forbidden = await receiveCallback(
      services,
      post('/v1/daraja/demo/b2c/timeout', refused, '198.51.100.7'),
    );
    // Every item in its plain layout: a compact receipt's body is deflated (receipt-item.ts).
    const items = await table.listAll();
    // Assess
    expect(ok.statusCode).toBe(200);
    expect(forbidden.statusCode).toBe(403);
    const everything = JSON.stringify(items);
    expect(everything).toContain(accepted.OriginatorConversationID);
    expect(everything).toContain(refused.OriginatorConversationID);
    expect(everything).not.toContain('REDACT-ME-c2VjcmV0');
  });
});
