import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import type { RelayMetrics } from '../../../shared/app/ports';
import { runPollCycle } from '../../../shared/app/reconciliation/poll-cycle';
import type { ReconcileServices } from '../../../shared/app/reconciliation/reconcile';
import { statusApiRegistry } from '../../../shared/app/reconciliation/status-apis';
import { registerTransaction } from '../../../shared/app/transactions/register-transaction';
import { parseConfig } from '../../../shared/config/load';
import { EVENT_DETAIL_SCHEMAS } from '../../../shared/domain/event-schemas';
import { receiveCallback } from '../../../shared/http/callback-endpoint';
import type { InboundRequest } from '../../../shared/http/types';

/*
 * An unsigned MoMo success (MoMo callbacks carry no signature; `confirmSuccess` is on by default) on an
 * account with no status API: nothing can ever confirm it. On a PENDING transaction it is held AMBIGUOUS
 * and escalated at the first look. After EXPIRED (design: a provider's final answer that arrives later is
 * never dropped; an unsigned success is confirmed before it is published) it must not settle the
 * transaction, and it must not vanish either: it is said at once, once, as a TransactionConflict for a
 * person (as after SUCCEEDED or FAILED). Real callback path (route, path secret, MoMo's parser, the one
 * ingest) and real poll cycle.
 */
const SECRET = 'momo-noapi-path-secret-0123';
const START = Date.parse('2026-11-23T10:00:00.000Z');

const config = parseConfig({
  management: { bearerToken: 'management-token-0123456789' },
  reconciliation: { windowSeconds: 3600 },
  accounts: { momo: { noapi: { pathSecret: SECRET } } },
});

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const noMetrics: RelayMetrics = { count: () => {}, timing: () => {}, flush: () => {} };
const successBody = readFileSync(
  new URL('../../fixtures/momo/requesttopay-successful.json', import.meta.url),
  'utf8',
);

function setup() {
  const store = new MemoryStore();
  let now = START;
  const base = {
    config,
    store,
    clock: { now: () => new Date(now) },
    log: silent,
    scrub: (s: string) => s,
    fetchImpl: (async () => {
      throw new Error('no provider here');
    }) as unknown as typeof fetch,
  };
  const services: ReconcileServices = { ...base, statusApi: statusApiRegistry(base), metrics: noMetrics };
  return {
    store,
    services,
    now: () => now,
    advance: (seconds: number) => void (now += seconds * 1000),
    types: () => store.published.map((e) => e.metadata.type),
    tx: (reference: string) => store.transactions.get(`momo#noapi#${reference}`)!,
    register: (reference: string) =>
      registerTransaction(services, {
        provider: 'momo',
        account: 'noapi',
        kind: 'requesttopay',
        reference,
        amount: '100',
        currency: 'EUR',
      }),
    succeed: (reference: string) =>
      receiveCallback(services, callback(`/v1/momo/noapi/${SECRET}/requesttopay/${reference}`, now)),
    /** Poll cycles a minute apart (the deployed schedule). */
    pollFor: async (minutes: number) => {
      for (let minute = 0; minute < minutes; minute++) {
        now += 60_000;
        await runPollCycle(services, { owner: 'p1' });
      }
    },
  };
}

function callback(path: string, at: number): InboundRequest {
  return {
    requestId: 'req-1',
    method: 'PUT',
    path,
    headers: { 'content-type': 'application/json' },
    query: {},
    rawBody: Buffer.from(successBody, 'utf8'),
    sourceIp: '198.51.100.7',
    receivedAt: new Date(at),
  };
}

describe('an unsigned MoMo success that no status API can confirm', () => {
  it('on a PENDING transaction: held AMBIGUOUS and escalated at the first look, never TransactionSucceeded', async () => {
    // Prepare
    const s = setup();
    const reference = '5f0a4a52-2c1e-4d8b-9a63-5e2b1c7d9f01';
    await s.register(reference);
    // Act
    const answer = await s.succeed(reference);
    await s.pollFor(2);
    // Assess
    expect(answer.statusCode).toBe(200);
    expect(s.tx(reference).status).toBe('AMBIGUOUS');
    expect(s.types()).toEqual(['TransactionAmbiguous', 'TransactionEscalated']);
  });

  it('after EXPIRED: recorded and said at once as a TransactionConflict, never TransactionSucceeded; it stays EXPIRED', async () => {
    // Prepare: the window (one hour) ends with no answer.
    const s = setup();
    const reference = '5f0a4a52-2c1e-4d8b-9a63-5e2b1c7d9f02';
    await s.register(reference);
    await s.pollFor(70);
    const expired = { status: s.tx(reference).status, types: s.types() };
    // Act: MoMo's success comes late, unsigned; then the poller looks, for half an hour (nothing to ask).
    const answer = await s.succeed(reference);
    const recorded = s.tx(reference);
    const said = s.types();
    await s.pollFor(30);
    // Assess
    expect(expired).toEqual({ status: 'EXPIRED', types: ['TransactionExpired'] });
    expect(answer.statusCode).toBe(200);
    expect(recorded.evidence?.at(-1)).toMatchObject({
      source: 'callback',
      claim: 'SUCCEEDED',
      conclusive: false,
    });
    expect(said).toEqual(['TransactionExpired', 'TransactionConflict']);
    const tx = s.tx(reference);
    expect(tx.status).toBe('EXPIRED');
    expect(s.types()).toEqual(['TransactionExpired', 'TransactionConflict']);
    const conflict = s.store.published.at(-1)!;
    expect(conflict.metadata.origin).toBe('callback');
    expect(conflict.data).toMatchObject({
      status: 'EXPIRED',
      conflict: {
        kind: 'STATUS',
        currentStatus: 'EXPIRED',
        reportedStatus: 'SUCCEEDED',
        reportedAmount: { value: '100', currency: 'EUR' },
        evidence: [{ source: 'callback', claim: 'SUCCEEDED', providerCode: 'SUCCESSFUL' }],
      },
    });
    const detail = (conflict.data as { conflict: { detail: string } }).conflict.detail;
    expect(detail).toBe(
      'unconfirmed SUCCEEDED reported after EXPIRED; a status check follows, if one can be made',
    );
    expect(EVENT_DETAIL_SCHEMAS.TransactionConflict.safeParse(conflict).error).toBeUndefined();
    expect(tx.conflicts).toHaveLength(1);
  });
});
