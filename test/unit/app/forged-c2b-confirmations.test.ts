/**
 * Forged Daraja C2B confirmations: Daraja signs nothing, so its sender is vouched for by the source-IP
 * allow-list alone (a path secret is in every URL it was ever shown). A confirmation from an address the
 * list did not admit (log-only, or the list off) is an unauthenticated callback: it never settles a payment
 * on its own word. Where the account can ask Daraja (`api`) the transaction waits AMBIGUOUS (UNCONFIRMED) for
 * the status query; where it cannot, it is held for a person. Daraja's own address still settles at once.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import type { RelayMetrics } from '../../../shared/app/ports';
import { runPollCycle } from '../../../shared/app/reconciliation/poll-cycle';
import { statusApiRegistry } from '../../../shared/app/reconciliation/status-apis';
import { parseConfig } from '../../../shared/config/load';
import { receiveCallback } from '../../../shared/http/callback-endpoint';
import { registered } from '../../helpers/reports';

const SECRET = 'daraja-path-secret-0123456789';
const FORGER_IP = '203.0.113.9';
const DARAJA_IP = '196.201.214.200';
const TRANS_ID = 'RKTQDM7W6S';

const API = {
  baseUrl: 'https://daraja.example.com',
  consumerKey: 'consumer-key',
  consumerSecret: 'consumer-secret',
  initiator: 'testapi',
  securityCredential: 'c2VjcmV0',
};

const fixture = (name: string) =>
  readFileSync(new URL(`../../fixtures/daraja/${name}.json`, import.meta.url), 'utf8');
const confirmation = fixture('c2b-confirmation');

function setup(account: { mode: 'log-only' | 'off' | 'enforce'; api?: boolean }) {
  const config = parseConfig({
    management: { bearerToken: 'management-token-0123456789' },
    accounts: {
      daraja: {
        ke: {
          pathSecret: SECRET,
          shortCode: '600638',
          sourceIp: { mode: account.mode },
          ...(account.api ? { api: API } : {}),
        },
      },
    },
  });
  const store = new MemoryStore();
  let now = Date.parse('2026-11-23T10:00:01.000Z');
  const asked: string[] = [];
  const services = {
    config,
    store,
    clock: { now: () => new Date(now) },
    log: { debug() {}, info() {}, warn() {}, error() {} },
    scrub: (s: string) => s,
    // No provider here: a question the relay asks is recorded, and answered by an outage.
    fetchImpl: (async (url: string) => {
      asked.push(String(url));
      throw new Error('no provider here');
    }) as unknown as typeof fetch,
  };
  const noMetrics: RelayMetrics = { count: () => {}, timing: () => {}, flush: () => {} };
  /** One poll cycle a minute later (the deployed schedule). */
  const poll = async () => {
    now += 60_000;
    await runPollCycle(
      { ...services, statusApi: statusApiRegistry(services), metrics: noMetrics },
      { owner: 'p1' },
    );
  };
  const post = async (sourceIp: string, route = 'c2b/confirmation', body = confirmation) =>
    (
      await receiveCallback(services, {
        requestId: 'req-1',
        method: 'POST',
        path: `/v1/daraja/ke/${SECRET}/${route}`,
        headers: { 'content-type': 'application/json' },
        query: {},
        rawBody: Buffer.from(body, 'utf8'),
        sourceIp,
        receivedAt: new Date('2026-11-23T10:00:00.000Z'),
      })
    ).statusCode;
  const types = () => store.published.map((e) => e.metadata.type);
  const transaction = () => store.getTransaction({ provider: 'daraja', account: 'ke', reference: TRANS_ID });
  return { store, post, types, transaction, poll, asked };
}

describe('a Daraja C2B confirmation from an address the allow-list did not admit', () => {
  it.each(['log-only', 'off'] as const)(
    'with a status API (list %s): held AMBIGUOUS (UNCONFIRMED) and asked about at once, never TransactionSucceeded',
    async (mode) => {
      // Prepare
      const s = setup({ mode, api: true });
      // Act
      expect(await s.post(FORGER_IP)).toBe(200);
      // Assess
      expect(s.types()).not.toContain('TransactionSucceeded');
      const tx = await s.transaction();
      expect(tx).toMatchObject({ status: 'AMBIGUOUS', reason: { code: 'UNCONFIRMED' } });
      expect(tx?.reconcile?.dueAt).toBe('2026-11-23T10:00:01.000Z');
      expect(tx?.evidence?.at(-1)).toMatchObject({
        claim: 'SUCCEEDED',
        authentication: ['path-secret'],
        conclusive: false,
      });
      // The first look asks Daraja about the receipt the body named (here Daraja is out: still AMBIGUOUS).
      await s.poll();
      const looked = await s.transaction();
      expect(looked?.reconcile?.recent.at(-1)?.request).toContain(`TransactionID ${TRANS_ID}`);
      expect(looked?.status).toBe('AMBIGUOUS');
    },
  );

  it('without a status API: held AMBIGUOUS (UNCONFIRMED) and escalated at the first look, never TransactionSucceeded', async () => {
    // Prepare
    const s = setup({ mode: 'log-only' });
    // Act
    expect(await s.post(FORGER_IP)).toBe(200);
    // Assess
    expect(s.types()).not.toContain('TransactionSucceeded');
    const tx = await s.transaction();
    expect(tx).toMatchObject({ status: 'AMBIGUOUS', reason: { code: 'UNCONFIRMED' } });
    const ambiguous = s.store.published.find((e) => e.metadata.type === 'TransactionAmbiguous');
    expect(ambiguous?.data).toMatchObject({ reason: { code: 'UNCONFIRMED' } });
    // Nothing can confirm it: the first look hands it to a person (a statement row or their resolve settles it).
    await s.poll();
    expect(s.types()).toEqual(['TransactionAmbiguous', 'TransactionEscalated']);
    expect(s.asked).toEqual([]);
  });
});

describe('a Daraja C2B confirmation from an address the allow-list admits', () => {
  it.each([
    ['enforce', false],
    ['log-only', false],
    ['log-only', true],
  ] as const)('settles at once (list %s, api %s): TransactionSucceeded', async (mode, api) => {
    const s = setup({ mode, api });
    expect(await s.post(DARAJA_IP)).toBe(200);
    expect(s.types()).toContain('TransactionSucceeded');
    expect((await s.transaction())?.status).toBe('SUCCEEDED');
  });
});

describe('a Daraja STK failure from an address the allow-list did not admit', () => {
  const STK = 'ws_CO_191220191020363925';
  it.each([
    [true, 'PENDING'],
    [false, 'FAILED'],
  ] as const)(
    'api %s: the payment is %s (a forged failure cannot fail it where Daraja can be asked)',
    async (api, status) => {
      // Prepare
      const s = setup({ mode: 'log-only', api });
      await s.store.createTransaction(
        registered({
          key: { provider: 'daraja', account: 'ke', reference: STK },
          kind: 'stk',
          amount: { value: '1', currency: 'KES' },
          externalId: undefined,
        }),
      );
      // Act
      expect(await s.post(FORGER_IP, 'stk', fixture('stk-cancelled').replace(/ws_CO_\w+/, STK))).toBe(200);
      // Assess
      const tx = await s.store.getTransaction({ provider: 'daraja', account: 'ke', reference: STK });
      expect(tx?.status).toBe(status);
    },
  );
});
