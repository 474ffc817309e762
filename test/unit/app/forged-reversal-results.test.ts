/**
 * Forged Daraja reversal results: what an anonymous sender who knows the account's path (a path secret is in
 * every URL it was ever shown) and a receipt number (it is on the customer's SMS) can make the relay do, through
 * the callback endpoint with Daraja's routes and parsers (in-memory store). The relay does not ask Daraja about
 * a reversal: its event carries the evidence it rests on, which is never conclusive on a sender check alone,
 * and two results for one request that disagree are a conflict, never "first wins" silently.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { parseConfig } from '../../../shared/config/load';
import type { Evidence } from '../../../shared/domain/evidence';
import { receiveCallback } from '../../../shared/http/callback-endpoint';
import { registered } from '../../helpers/reports';

const SECRET = 'daraja-path-secret-0123456789';
const STK_REFERENCE = 'ws_CO_191220191020363925';
const FORGER_IP = '203.0.113.9';
/** One of Safaricom's documented callback addresses (the account's default allow-list). */
const DARAJA_IP = '196.201.214.200';

const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/daraja/${name}.json`, import.meta.url), 'utf8');

function setup() {
  const config = parseConfig({
    management: { bearerToken: 'management-token-0123456789' },
    accounts: {
      // Safaricom's addresses are not all known (provider notes): the list only logs, as many run it.
      daraja: { ke: { pathSecret: SECRET, shortCode: '600638', sourceIp: { mode: 'log-only' } } },
    },
  });
  const store = new MemoryStore();
  const services = {
    config,
    store,
    clock: { now: () => new Date('2026-11-23T10:00:01.000Z') },
    log: { debug() {}, info() {}, warn() {}, error() {} },
    scrub: (s: string) => s,
  };
  let n = 0;
  const post = async (route: string, body: string, sourceIp = FORGER_IP) =>
    (
      await receiveCallback(services, {
        requestId: `req-${++n}`,
        method: 'POST',
        path: `/v1/daraja/ke/${SECRET}/${route}`,
        headers: { 'content-type': 'application/json' },
        query: {},
        rawBody: Buffer.from(body, 'utf8'),
        sourceIp,
        receivedAt: new Date('2026-11-23T10:00:00.000Z'),
      })
    ).statusCode;
  const events = (type: string) => store.published.filter((e) => e.metadata.type === type);
  /** A paid 1 KES STK payment whose receipt (NLJ7RT61SV, on the customer's SMS) the relay learnt. */
  const paid = async () => {
    await store.createTransaction(
      registered({
        key: { provider: 'daraja', account: 'ke', reference: STK_REFERENCE },
        kind: 'stk',
        amount: { value: '1', currency: 'KES' },
        externalId: undefined,
      }),
    );
    expect(await post('stk', fixture('stk-success'), DARAJA_IP)).toBe(200);
  };
  return { store, post, events, paid };
}

describe('a forged Daraja reversal result naming a receipt from an SMS', () => {
  it('is published with evidence that is not conclusive: a path secret vouches for no content', async () => {
    // Prepare
    const s = setup();
    await s.paid();
    // Act
    expect(await s.post('reversal/result', fixture('reversal-result-success'))).toBe(200);
    // Assess
    const [reversed] = s.events('TransactionReversed');
    const [evidence] = reversed?.data.evidence as Evidence[];
    expect(evidence).toMatchObject({
      source: 'callback',
      authenticated: true,
      authentication: ['path-secret'],
      conclusive: false,
    });
  });

  it('a second result under the same request id for another amount is a TransactionConflict, not a silent first win', async () => {
    // Prepare: the first result (a forger's, or Daraja's) counted.
    const s = setup();
    await s.paid();
    await s.post('reversal/result', fixture('reversal-result-success'));
    // Act: another body under the same request id, for 0.5 KES.
    await s.post(
      'reversal/result',
      fixture('reversal-result-success').replace(
        '"Key":"Amount","Value":1.00',
        '"Key":"Amount","Value":0.50',
      ),
    );
    // Assess
    expect(s.events('TransactionReversed')).toHaveLength(1);
    const conflicts = s.events('TransactionConflict');
    expect(conflicts).toHaveLength(1);
    expect(conflicts[0]?.data).toMatchObject({
      reference: STK_REFERENCE,
      conflict: { kind: 'STATUS', detail: expect.stringContaining('request 8521-4298025-1') },
    });
    const tx = await s.store.getTransaction({ provider: 'daraja', account: 'ke', reference: STK_REFERENCE });
    expect(tx?.status).toBe('SUCCEEDED');
    expect(tx?.reversals).toHaveLength(1);
  });

  it('the same body again is a repeat: no conflict', async () => {
    const s = setup();
    await s.paid();
    await s.post('reversal/result', fixture('reversal-result-success'));
    await s.post('reversal/result', fixture('reversal-result-success'));
    expect(s.events('TransactionReversed')).toHaveLength(1);
    expect(s.events('TransactionConflict')).toEqual([]);
  });
});
