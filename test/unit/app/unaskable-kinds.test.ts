import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import type { RelayMetrics } from '../../../shared/app/ports';
import { runPollCycle } from '../../../shared/app/reconciliation/poll-cycle';
import type { ReconcileServices } from '../../../shared/app/reconciliation/reconcile';
import { statusApiRegistry } from '../../../shared/app/reconciliation/status-apis';
import { registerTransaction } from '../../../shared/app/transactions/register-transaction';
import { parseConfig } from '../../../shared/config/load';
import { receiveCallback } from '../../../shared/http/callback-endpoint';
import type { InboundRequest } from '../../../shared/http/types';

/*
 * An unsigned FAILED callback on an account that confirms failures with its status API, for a kind that
 * API cannot check on that account (docs/reconciliation.md#verify-before-trusting): the real callback
 * path (route, path secret, the provider's parser, the one ingest) and the real status API clients,
 * which answer `unsupported` without calling the provider. It is handed to a person at the first look.
 */
const MOMO_SECRET = 'momo-remit-path-secret-0123';
const AIRTEL_SECRET = 'airtel-path-secret-0123456';
const CASH_TRANSFER = '0f7a4a52-2c1e-4d8b-9a63-5e2b1c7d9f11';
const START = Date.parse('2026-11-23T10:00:00.000Z');

const config = parseConfig({
  management: { bearerToken: 'management-token-0123456789' },
  reconciliation: { windowSeconds: 3600 },
  accounts: {
    momo: {
      // Remittance: cash transfers, no `api.paths.cashtransfer` (MoMo's docs give it no path).
      remit: {
        pathSecret: MOMO_SECRET,
        api: {
          baseUrl: 'http://momo.invalid',
          apiUser: 'api-user',
          apiKey: 'api-key',
          remittanceSubscriptionKey: 'remittance-key',
          disbursementSubscriptionKey: 'disbursement-key',
        },
      },
    },
    airtel: {
      // Callbacks unsigned (no callback authentication), successes and failures confirmed.
      ug: {
        pathSecret: AIRTEL_SECRET,
        hashMode: 'off',
        confirmSuccess: true,
        country: 'UG',
        currency: 'UGX',
        api: { baseUrl: 'http://airtel.invalid', clientId: 'client-id', clientSecret: 'client-secret' },
      },
      // The same, on a deployment without the refund enquiry the relay asks by default.
      ugr: {
        pathSecret: AIRTEL_SECRET,
        hashMode: 'off',
        confirmSuccess: true,
        country: 'UG',
        currency: 'UGX',
        api: {
          baseUrl: 'http://airtel.invalid',
          clientId: 'client-id',
          clientSecret: 'client-secret',
          paths: { refund: null },
        },
      },
    },
  },
});

const silent = { debug() {}, info() {}, warn() {}, error() {} };
const noMetrics: RelayMetrics = { count: () => {}, timing: () => {}, flush: () => {} };

function setup() {
  const store = new MemoryStore();
  let now = START;
  const calls: string[] = [];
  const base = {
    config,
    store,
    clock: { now: () => new Date(now) },
    log: silent,
    scrub: (s: string) => s,
    // Nothing here may reach a provider: a kind that cannot be asked is never asked.
    fetchImpl: (async (url: string) => {
      calls.push(String(url));
      throw new Error('no provider here');
    }) as unknown as typeof fetch,
  };
  const services: ReconcileServices = { ...base, statusApi: statusApiRegistry(base), metrics: noMetrics };
  return {
    store,
    services,
    calls,
    advance: (seconds: number) => void (now += seconds * 1000),
    types: () => store.published.map((e) => e.metadata.type),
    tx: (provider: string, account: string, reference: string) =>
      store.transactions.get(`${provider}#${account}#${reference}`)!,
  };
}

function post(path: string, body: string, at: number): InboundRequest {
  return {
    requestId: 'req-1',
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json' },
    query: {},
    rawBody: Buffer.from(body, 'utf8'),
    sourceIp: '198.51.100.7',
    receivedAt: new Date(at),
  };
}

const fixture = (path: string) => readFileSync(new URL(`../../fixtures/${path}`, import.meta.url), 'utf8');

/** Poll cycles a minute apart (the deployed schedule) for `minutes`, then as long again past the window. */
async function pollFor(s: ReturnType<typeof setup>, minutes: number) {
  for (let minute = 0; minute < minutes; minute++) {
    s.advance(60);
    await runPollCycle(s.services, { owner: 'p1' });
  }
}

describe('an unsigned FAILED for a kind the status API cannot check', () => {
  it('MoMo cash transfer (no paths.cashtransfer): AMBIGUOUS and escalated at the first look, never expired NO_FINAL_ANSWER', async () => {
    // Prepare
    const s = setup();
    await registerTransaction(s.services, {
      provider: 'momo',
      account: 'remit',
      kind: 'cashtransfer',
      reference: CASH_TRANSFER,
      amount: '100',
      currency: 'EUR',
      externalId: 'remit-5522',
    });
    const answer = await receiveCallback(
      s.services,
      post(
        `/v1/momo/remit/${MOMO_SECRET}/cashtransfer/${CASH_TRANSFER}`,
        fixture('momo/cashtransfer-failed.json'),
        START,
      ),
    );
    const held = { status: s.tx('momo', 'remit', CASH_TRANSFER).status, types: s.types() };
    // Act: one poll cycle, then two hours of them (the window is one hour).
    await pollFor(s, 1);
    const first = { status: s.tx('momo', 'remit', CASH_TRANSFER).status, types: s.types() };
    await pollFor(s, 120);
    // Assess
    expect(answer.statusCode).toBe(200);
    expect(held).toEqual({ status: 'PENDING', types: [] });
    expect(first).toEqual({ status: 'AMBIGUOUS', types: ['TransactionAmbiguous', 'TransactionEscalated'] });
    const tx = s.tx('momo', 'remit', CASH_TRANSFER);
    expect(tx.status).toBe('AMBIGUOUS');
    expect(tx.reason).toMatchObject({ code: 'UNCONFIRMED', providerCode: 'PAYEE_NOT_FOUND' });
    expect(tx.reason!.message).toMatch(/callback \(path-secret\) said FAILED/);
    expect(tx.reason!.message).toMatch(/accounts\.momo\.remit\.api\.paths\.cashtransfer/);
    expect(s.types()).toEqual(['TransactionAmbiguous', 'TransactionEscalated']);
    expect(s.calls).toEqual([]);
  });

  it.each([
    {
      what: 'Airtel disbursement (no paths.disbursement)',
      account: 'ug',
      kind: 'disbursement',
      reference: 'AT-ORDER-1002',
      message: 'Transaction failed: insufficient balance',
      why: /disbursement/,
    },
    {
      what: 'Airtel refund (api.paths.refund null)',
      account: 'ugr',
      kind: 'refund',
      reference: 'AT-REFUND-7',
      message: 'Refund failed: original transaction not refundable',
      why: /paths\.refund/,
    },
  ])(
    '$what: AMBIGUOUS and escalated at the first look',
    async ({ account, kind, reference, message, why }) => {
      // Prepare: the TF callback of Airtel's shape (test/fixtures/airtel/callback-tf.json) for this transaction.
      const s = setup();
      await registerTransaction(s.services, {
        provider: 'airtel',
        account,
        kind,
        reference,
        amount: '1000',
        currency: 'UGX',
      });
      const body = JSON.parse(fixture('airtel/callback-tf.json'));
      body.transaction = { ...body.transaction, id: reference, message };
      await receiveCallback(
        s.services,
        post(`/v1/airtel/${account}/${AIRTEL_SECRET}/callback`, JSON.stringify(body), START),
      );
      const held = { status: s.tx('airtel', account, reference).status, types: s.types() };
      // Act
      await pollFor(s, 120);
      // Assess
      expect(held).toEqual({ status: 'PENDING', types: [] });
      const tx = s.tx('airtel', account, reference);
      expect(tx.status).toBe('AMBIGUOUS');
      expect(tx.reason?.code).toBe('UNCONFIRMED');
      expect(tx.reason!.message).toMatch(/said FAILED.*cannot be confirmed: /);
      expect(tx.reason!.message).toMatch(why);
      expect(s.types()).toEqual(['TransactionAmbiguous', 'TransactionEscalated']);
      expect(s.calls).toEqual([]);
    },
  );
});
