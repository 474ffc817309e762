/**
 * A forged Daraja Account Balance result (the relay's own request's ids, which only the relay's TLS call
 * and Daraja's callback carry, but no signature: Daraja's callbacks are unsigned) through the relay's own
 * parts: the callback endpoint with Daraja's routes and parsers, the Daraja client asking for the balance,
 * and the balance cycle that takes the snapshot (in-memory store, a manual clock).
 *
 * The ids are a correlation, not a proof of content: a result on the relay's own request is the only one
 * the snapshot takes, it records how it was delivered (unconfirmed), and two results for one request that
 * disagree publish one AccountBalanceFailed CONFLICTING_REPORTS and give no snapshot.
 */
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { runBalanceCycle } from '../../../shared/app/provider-records/balance-cycle';
import { parseConfig } from '../../../shared/config/load';
import { type BalanceSnapshot, unconfirmedBalance } from '../../../shared/domain/statement';
import { receiveCallback } from '../../../shared/http/callback-endpoint';
import { createDarajaStatusApi } from '../../../shared/providers/daraja/api-client';
import type { DarajaAccountSettings } from '../../../shared/providers/daraja/schema';

const SECRET = 'daraja-path-secret-0123456789';
const SAFARICOM_IP = '196.201.214.200';
const START = Date.parse('2026-11-23T10:00:00.000Z');
const silentLog = { debug() {}, info() {}, warn() {}, error() {} };
const REQUEST = { oc: '29112-00000001-1', c: 'AG_20261123_B1' };

function setup() {
  const config = parseConfig({
    management: { bearerToken: 'a-long-enough-token' },
    publicBaseUrl: 'https://relay.example.com',
    providerRecords: { balanceIntervalSeconds: 3600 },
    accounts: {
      daraja: {
        demo: {
          pathSecret: SECRET,
          shortCode: '600638',
          // Safaricom's addresses are not all known (provider notes): the list only logs, as many run it.
          sourceIp: { mode: 'log-only' },
          api: {
            baseUrl: 'https://daraja.example.com',
            consumerKey: 'consumer-key',
            consumerSecret: 'consumer-secret',
            initiator: 'testapi',
            securityCredential: 'c2VjcmV0',
          },
        },
      },
    },
  });
  const store = new MemoryStore();
  let now = START;
  const clock = { now: () => new Date(now) };
  // Daraja accepts the relay's balance request with these ids; its result comes later, by callback.
  const network = (async (input: string | URL | Request) => {
    const url = String(input);
    const json = url.includes('/oauth/v1/generate')
      ? { access_token: 'token', expires_in: '3599' }
      : {
          OriginatorConversationID: REQUEST.oc,
          ConversationID: REQUEST.c,
          ResponseCode: '0',
          ResponseDescription: 'Accept the service request successfully.',
        };
    return new Response(JSON.stringify(json), { headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
  const account = config.accounts.get('daraja/demo')!;
  const api = createDarajaStatusApi(
    {
      provider: 'daraja',
      id: 'demo',
      pathSecret: account.pathSecret,
      settings: account.settings as DarajaAccountSettings,
    },
    { fetch: network, now: () => now, sleep: async () => {}, log: silentLog },
  );
  const balances: BalanceSnapshot[] = [];
  const failures: string[] = [];
  const services = {
    config,
    store,
    clock,
    log: {
      ...silentLog,
      warn: (message: string, fields?: Record<string, unknown>) =>
        void failures.push(`${message} ${String(fields?.detail ?? '')}`),
    },
    scrub: (s: string) => s,
    metrics: { count() {}, timing() {}, flush() {} },
    statusApi: () => api,
    statementSink: {
      ingestRows: () => Promise.reject(new Error('no rows in this test')),
      recordBalance: async (snapshot: BalanceSnapshot) => void balances.push(snapshot),
    },
  };
  /** A balance result on the account's route: from Daraja's address, or from anyone who knows the path. */
  const post = async (working: string, from = SAFARICOM_IP) => {
    const body = {
      Result: {
        ResultType: 0,
        ResultCode: 0,
        ResultDesc: 'The service request is processed successfully.',
        OriginatorConversationID: REQUEST.oc,
        ConversationID: REQUEST.c,
        TransactionID: 'NLJ41HAY6Q',
        ResultParameters: {
          ResultParameter: [
            { Key: 'AccountBalance', Value: `Working Account|KES|${working}|${working}|0.00|0.00` },
            { Key: 'BOCompletedTime', Value: 20261123130000 },
          ],
        },
      },
    };
    const answer = await receiveCallback(services, {
      requestId: `req-${working}-${from}`,
      method: 'POST',
      path: `/v1/daraja/demo/${SECRET}/balance/result`,
      headers: { 'content-type': 'application/json' },
      query: {},
      rawBody: Buffer.from(JSON.stringify(body), 'utf8'),
      sourceIp: from,
      receivedAt: new Date(now),
    });
    return answer.statusCode;
  };
  /** A queue-timeout notice naming the request: it says the outcome is unknown, nothing more. */
  const timeout = () =>
    receiveCallback(services, {
      requestId: 'req-timeout',
      method: 'POST',
      path: `/v1/daraja/demo/${SECRET}/balance/timeout`,
      headers: { 'content-type': 'application/json' },
      query: {},
      rawBody: Buffer.from(
        JSON.stringify({ Result: { ResultCode: 1, OriginatorConversationID: REQUEST.oc } }),
      ),
      sourceIp: '203.0.113.9',
      receivedAt: new Date(now),
    });
  return {
    store,
    timeout,
    post,
    balances,
    failures,
    events: (type: string) => store.published.filter((e) => e.metadata.type === type),
    /** The balance cycle at START (asks), then a minute later (reads the result). */
    ask: () => runBalanceCycle(services),
    next: () => {
      now += 60_000;
      return runBalanceCycle(services);
    },
  };
}

describe("a forged Daraja balance result carrying the relay's own request ids", () => {
  it('sent before Daraja’s own result: neither becomes the snapshot, one AccountBalanceFailed names both', async () => {
    // Prepare: the relay asked; the forger's body arrives first (the path secret and the ids are all it has).
    const s = setup();
    await s.ask();
    expect(await s.post('1.00', '203.0.113.9')).toBe(200);
    expect(await s.post('700000.00')).toBe(200);

    // Act
    const [turn] = await s.next();
    // Assess
    expect(turn).toMatchObject({ outcome: 'failed', snapshots: 0 });
    expect(s.balances).toEqual([]);
    const [conflict] = s.events('AccountBalanceFailed');
    expect(s.events('AccountBalanceFailed')).toHaveLength(1);
    expect(conflict?.data).toMatchObject({
      originatorConversationId: REQUEST.oc,
      reason: { code: 'UNKNOWN' },
      reasonDetail: 'CONFLICTING_REPORTS',
    });
    expect((conflict?.data.reason as { message: string }).message).toContain(
      'AccountBalanceReported with other content',
    );
  });

  it('sent after it: the same conflict, no snapshot, and a third body adds no second event', async () => {
    // Prepare
    const s = setup();
    await s.ask();
    await s.post('700000.00');
    await s.post('1.00', '203.0.113.9');
    await s.post('2.00', '203.0.113.9');

    // Act
    const [turn] = await s.next();

    // Assess
    expect(turn?.outcome).toBe('failed');
    expect(s.balances).toEqual([]);
    expect(s.events('AccountBalanceFailed')).toHaveLength(1);
    expect(s.events('AccountBalanceReported')).toHaveLength(1);
  });

  it('a forged queue timeout naming the request neither suppresses the result nor counts as one', async () => {
    const s = setup();
    await s.ask();
    expect((await s.timeout()).statusCode).toBe(200);
    await s.post('700000.00');

    const [turn] = await s.next();

    expect(turn).toMatchObject({ outcome: 'recorded', snapshots: 1 });
    expect(s.balances.map((b) => b.balance)).toEqual(['700000']);
  });

  it('alone, it is taken as an unconfirmed snapshot naming how it was delivered; a repeat is no conflict', async () => {
    // Prepare: one result, repeated identically (a genuine repeat from Daraja's address).
    const s = setup();
    await s.ask();
    await s.post('700000.00');
    await s.post('700000.00');

    // Act
    const [turn] = await s.next();

    // Assess
    expect(turn).toMatchObject({ outcome: 'recorded', snapshots: 1 });
    expect(s.events('AccountBalanceFailed')).toEqual([]);
    expect(s.balances).toEqual([
      expect.objectContaining({ balance: '700000', authentication: ['path-secret', 'source-ip'] }),
    ]);
    expect(unconfirmedBalance(s.balances[0]!)).toBe(true);
  });
});
