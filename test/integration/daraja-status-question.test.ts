import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ReconcileServices } from '../../shared/app/reconciliation/reconcile';
import { checkTransaction } from '../../shared/app/reconciliation/reconcile';
import { registerTransaction } from '../../shared/app/transactions/register-transaction';
import { loadConfig } from '../../shared/config/load';
import type { RelayConfig } from '../../shared/config/schema';
import { receiveCallback } from '../../shared/http/callback-endpoint';
import { createDarajaStatusApi } from '../../shared/providers/daraja/api-client';
import { darajaRouteUrl } from '../../shared/providers/daraja';
import type { DarajaAccountSettings } from '../../shared/providers/daraja/schema';
import type { StatusApi } from '../../shared/providers/types';
import { createIntegrationRelay } from '../helpers/integration';
import { json, scriptedFetch, testDeps } from '../unit/providers/outbound-http/support';

/*
 * In AWS the callback function holds no Daraja API credentials (it reads the callback secret only), so it
 * cannot verify the token the poller's status query carries in its Occasion: what makes a status result
 * the provider's answer to the relay there is the query record the poller wrote. That record now carries
 * what the query asked, and a result counts as the relay's answer only where it answers that question.
 * The poller (every secret) and the callback function (`secretKinds: ['callback']`) load one cloud config,
 * share one table in DynamoDB Local; the query goes through the real Daraja client to a scripted Daraja
 * answering as its documentation shows, and the result is Safaricom's own documented sample.
 */

const ROOT = join(import.meta.dirname, '../..');
/** Safaricom's documented transaction-status result: a Completed B2C of 300 KES, receipt MBN31H462N. */
const DOCUMENTED = JSON.parse(
  readFileSync(join(ROOT, 'test/fixtures/daraja/documented/status-result.json'), 'utf8'),
) as { Result: { ConversationID: string; ResultParameters: { ResultParameter: { Key: string }[] } } };
/** The payout the documented result is about (its ResultParameters' OriginatorConversationID). */
const DOCUMENTED_PAYOUT = '3211-416020-3';
const DOCUMENTED_RECEIPT = 'MBN31H462N';
const SAFARICOM_IP = '196.201.214.200';

const CALLBACK_SECRET_ID = 'relay/daraja-ke/callback';
const API_SECRET_ID = 'relay/daraja-ke/api';
const SECRETS: Record<string, string> = {
  [CALLBACK_SECRET_ID]: JSON.stringify({ pathSecret: 'daraja-path-secret-0123' }),
  [API_SECRET_ID]: JSON.stringify({
    api: {
      consumerKey: 'daraja-consumer-key',
      consumerSecret: 'daraja-consumer-secret',
      initiator: 'testapi',
      securityCredential: 'ENCRYPTED==',
    },
  }),
};
const CLOUD_CONFIG = {
  management: { auth: 'iam' },
  publicBaseUrl: 'https://relay.example.org',
  accounts: {
    daraja: {
      ke: {
        shortCode: '600638',
        currency: 'KES',
        sourceIp: { mode: 'enforce' },
        callbackSecretId: CALLBACK_SECRET_ID,
        apiSecretId: API_SECRET_ID,
        api: { baseUrl: 'https://daraja.test' },
      },
    },
  },
};

const load = (secretKinds?: ('callback' | 'api')[]) =>
  loadConfig({ RELAY_CONFIG_JSON: JSON.stringify(CLOUD_CONFIG) }, undefined, {
    readSecret: async (id) => SECRETS[id]!,
    ...(secretKinds ? { secretKinds } : {}),
  });

let relay: Awaited<ReturnType<typeof createIntegrationRelay>>;
let callbackConfig: RelayConfig;
let pollerConfig: RelayConfig;

beforeAll(async () => {
  callbackConfig = await load(['callback']);
  pollerConfig = await load();
  relay = await createIntegrationRelay(callbackConfig);
});
afterAll(async () => {
  await relay?.stop();
});

/**
 * The poller's status check of `reference`: the real Daraja client sends the query and Daraja accepts it
 * with `conversationId` (its documented synchronous answer); the poller records the query before any
 * result can come. Returns what the client asked.
 */
async function pollerAsks(reference: string, conversationId: string) {
  const daraja = scriptedFetch([
    {
      match: (r) => r.url.includes('/oauth/v1/generate'),
      replies: [json(200, { access_token: 'dar-tok', expires_in: '3599' })],
    },
    {
      match: (r) => r.url.endsWith('/transactionstatus/v1/query'),
      replies: [
        json(200, {
          OriginatorConversationID: '3213-416199-2',
          ConversationID: conversationId,
          ResponseCode: '0',
          ResponseDescription: 'Accept the service request successfully.',
        }),
      ],
    },
  ]);
  const account = pollerConfig.accounts.get('daraja/ke')!;
  const api: StatusApi = createDarajaStatusApi(
    { ...account, provider: 'daraja', settings: account.settings as DarajaAccountSettings },
    testDeps(daraja.fetch).deps,
  )!;
  const poller: ReconcileServices = {
    ...relay.services,
    config: pollerConfig,
    statusApi: () => api,
    metrics: { count() {}, timing() {}, flush() {} },
  };
  const key = { provider: 'daraja', account: 'ke', reference };
  const claimed = (await relay.table.store.getTransaction(key))!;
  const check = await checkTransaction(poller, claimed);
  expect(check.answer.type).toBe('requested');
  const query = daraja.requests.find((r) => r.url.endsWith('/transactionstatus/v1/query'))!;
  return JSON.parse(query.body!) as Record<string, string>;
}

/** Daraja posts the documented result of the query `conversationId` to the callback function. */
async function darajaPostsResult(conversationId: string) {
  const body = { Result: { ...DOCUMENTED.Result, ConversationID: conversationId } };
  const account = callbackConfig.accounts.get('daraja/ke')!;
  const url = new URL(darajaRouteUrl('https://relay.example.org', 'ke', account.pathSecret, 'status-result'));
  return receiveCallback(relay.services, {
    requestId: conversationId,
    method: 'POST',
    path: url.pathname,
    headers: { 'content-type': 'application/json' },
    query: {},
    rawBody: Buffer.from(JSON.stringify(body)),
    sourceIp: SAFARICOM_IP,
    receivedAt: new Date(),
  });
}

async function registerPayout(reference: string) {
  await registerTransaction(relay.services, {
    provider: 'daraja',
    account: 'ke',
    kind: 'b2c',
    reference,
    amount: '300',
    currency: 'KES',
  });
}

async function eventsOf(reference: string) {
  return (await relay.publish()).filter((e) => (e.data as { reference?: string }).reference === reference);
}

describe("Daraja in AWS: a status result counts as the relay's answer only when it answers what the query asked", () => {
  it('the callback function holds no key for the query token: the record is all it has', () => {
    // Assess: the premise of the tests below, as the cloud config loads.
    expect(callbackConfig.accounts.get('daraja/ke')!.settings).not.toHaveProperty('api');
    expect(pollerConfig.accounts.get('daraja/ke')!.settings).toHaveProperty('api.consumerSecret');
  });

  it('settles the payout the result is about with origin poll, its receipt recorded', async () => {
    // Prepare: the relay asks about the documented payout.
    await registerPayout(DOCUMENTED_PAYOUT);
    const asked = await pollerAsks(DOCUMENTED_PAYOUT, 'AG_20261129_0000answers0001');

    // Act
    const answer = await darajaPostsResult('AG_20261129_0000answers0001');
    const events = await eventsOf(DOCUMENTED_PAYOUT);
    const tx = await relay.table.store.getTransaction({
      provider: 'daraja',
      account: 'ke',
      reference: DOCUMENTED_PAYOUT,
    });

    // Assess
    expect(asked).toMatchObject({ OriginatorConversationID: DOCUMENTED_PAYOUT });
    expect(answer.statusCode).toBe(200);
    expect(tx).toMatchObject({ status: 'SUCCEEDED', providerTransactionId: DOCUMENTED_RECEIPT });
    const succeeded = events.filter((e) => e.metadata.type === 'TransactionSucceeded');
    expect(succeeded).toHaveLength(1);
    expect(succeeded[0]!.metadata.origin).toBe('poll');
  });

  it("never settles another payout with it: the result about 3211-416020-3 through the record of a query about another is a conflict held AMBIGUOUS, without that payout's receipt", async () => {
    // Prepare: the relay asks about its own payout; Daraja's result (or a forger who learnt the query's
    // ConversationID) is about the documented payout instead.
    const reference = '29115-34620561-7';
    await registerPayout(reference);
    const asked = await pollerAsks(reference, 'AG_20261129_0000mismatch001');

    // Act
    const answer = await darajaPostsResult('AG_20261129_0000mismatch001');
    const events = await eventsOf(reference);
    const tx = await relay.table.store.getTransaction({ provider: 'daraja', account: 'ke', reference });
    const receiptAlias = await relay.table.store.getRecord({
      provider: 'daraja',
      account: 'ke',
      namespace: 'alias:receipt',
      id: DOCUMENTED_RECEIPT,
    });

    // Assess: acknowledged and kept, never the payout's success; published as a claim of another transaction.
    expect(asked).toMatchObject({ OriginatorConversationID: reference });
    expect(answer.statusCode).toBe(200);
    expect(tx).toMatchObject({
      status: 'AMBIGUOUS',
      reason: { code: 'CONFLICTING_REPORTS' },
    });
    expect(tx?.providerTransactionId).toBeUndefined();
    expect(tx?.attributes?.StatusResultMismatch).toContain(DOCUMENTED_PAYOUT);
    expect(events.map((e) => [e.metadata.type, e.metadata.origin])).toEqual([
      ['TransactionAmbiguous', 'callback'],
    ]);
    expect(events[0]!.data).toMatchObject({
      reason: { code: 'UNKNOWN', providerCode: 'STATUS_RESULT_MISMATCH' },
      reasonDetail: 'CONFLICTING_REPORTS',
    });
    expect(receiptAlias?.data.reference).not.toBe(reference);
  });

  it('holds a result nobody here asked for (no query record) UNCONFIRMED, though the callback function reads no API secret', async () => {
    // Prepare: the documented payout's result arrives with no query of the relay behind it (a partner's
    // query, a forgery): the account can still be asked, by the poller that holds its API secret.
    const reference = DOCUMENTED_PAYOUT.replace('-3', '-4');
    await registerPayout(reference);
    const body = {
      Result: {
        ...DOCUMENTED.Result,
        ConversationID: 'AG_20261129_0000unasked0001',
        ResultParameters: {
          ResultParameter: DOCUMENTED.Result.ResultParameters.ResultParameter.map((p) =>
            p.Key === 'OriginatorConversationID'
              ? { ...p, Value: reference }
              : p.Key === 'ReceiptNo'
                ? { ...p, Value: 'MBN31H462P' }
                : p,
          ),
        },
      },
    };
    const account = callbackConfig.accounts.get('daraja/ke')!;
    const url = new URL(
      darajaRouteUrl('https://relay.example.org', 'ke', account.pathSecret, 'status-result'),
    );

    // Act
    const answer = await receiveCallback(relay.services, {
      requestId: 'unasked',
      method: 'POST',
      path: url.pathname,
      headers: { 'content-type': 'application/json' },
      query: {},
      rawBody: Buffer.from(JSON.stringify(body)),
      sourceIp: SAFARICOM_IP,
      receivedAt: new Date(),
    });
    const tx = await relay.table.store.getTransaction({ provider: 'daraja', account: 'ke', reference });
    const events = await eventsOf(reference);

    // Assess: a claim the relay will ask about, never a success on its word.
    expect(answer.statusCode).toBe(200);
    expect(account.settings).not.toHaveProperty('confirmSuccess', true);
    expect(tx).toMatchObject({ status: 'AMBIGUOUS', reason: { code: 'UNCONFIRMED' } });
    expect(events.map((e) => e.metadata.type)).not.toContain('TransactionSucceeded');
  });
});
