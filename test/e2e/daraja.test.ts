import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { EventEnvelope } from '../../shared/domain/events';
import { awaitRecord } from '../helpers/hostile';
import { startTestRelay, type TestRelay } from '../helpers/relay';

const SAFARICOM_IP = '196.201.214.200';
const STRANGER_IP = '203.0.113.9';
const SECRET = 'daraja-e2e-path-secret-42';

const fixture = (name: string): any =>
  JSON.parse(readFileSync(join(import.meta.dirname, '../fixtures/daraja', name), 'utf8'));

let relay: TestRelay;
let silentPartner: Server;
let decidingPartner: Server;
const partnerRequests: { headers: Record<string, unknown>; body: unknown }[] = [];

async function listen(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return (server.address() as AddressInfo).port;
}

beforeAll(async () => {
  // A partner decision endpoint that accepts the connection and never answers.
  silentPartner = createServer(() => {});
  // One that reads the payload and rejects with a KYC code.
  decidingPartner = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      partnerRequests.push({
        headers: req.headers,
        body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
      });
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ accept: false, resultCode: 'C2B00014' }));
    });
  });
  const silentPort = await listen(silentPartner);
  const decidingPort = await listen(decidingPartner);
  relay = await startTestRelay({
    accounts: {
      daraja: {
        demo: {
          shortCode: '600638',
          c2b: {
            billRefPattern: '[A-Z0-9-]{3,20}',
            minAmount: 1,
            maxAmount: 70000,
            msisdnPrefixes: ['2547'],
          },
        },
        guarded: { pathSecret: SECRET },
        slow: {
          c2b: {
            deadlineMs: 300,
            defaultDecision: 'reject',
            defaultRejectCode: 'C2B00016',
            partner: { url: `http://127.0.0.1:${silentPort}/decide` },
          },
        },
        partnered: {
          c2b: {
            partner: {
              url: `http://127.0.0.1:${decidingPort}/decide`,
              bearerToken: 'partner-token-0123456789',
            },
          },
        },
        lenient: { sourceIp: { mode: 'log-only' } },
      },
    },
  });
});
afterAll(async () => {
  await relay.stop();
  for (const server of [silentPartner, decidingPartner]) {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

let n = 0;
const unique = (prefix: string) => `${prefix}${Date.now().toString(36)}${++n}`;

function post(path: string, body: unknown, ip = SAFARICOM_IP) {
  return relay.request('POST', path, body, { 'x-forwarded-for': ip });
}

async function register(fields: Record<string, unknown>) {
  const res = await relay.admin('POST', '/v1/transactions', {
    provider: 'daraja',
    account: 'demo',
    currency: 'KES',
    ...fields,
  });
  expect(res.status).toBe(201);
  return res.body as { callbackUrl: string };
}

async function eventsFor(reference: string): Promise<EventEnvelope[]> {
  return (await relay.flush()).filter((e) => (e.data as { reference?: string }).reference === reference);
}

const types = (events: EventEnvelope[]) => events.map((e) => e.metadata.type);

function stk(name: string, checkoutRequestId: string) {
  const body = fixture(name);
  body.Body.stkCallback.CheckoutRequestID = checkoutRequestId;
  return body;
}

describe('Daraja end to end through the local HTTP server', () => {
  describe('STK push results', () => {
    it('acks a success for a registered CheckoutRequestID and publishes TransactionSucceeded with amount and receipt', async () => {
      // Prepare
      const ref = unique('ws_CO_');
      const { callbackUrl } = await register({
        kind: 'stk',
        reference: ref,
        amount: '1',
        msisdn: '254708374149',
      });
      // Act
      const res = await post(new URL(callbackUrl).pathname, stk('stk-success.json', ref));
      const events = await eventsFor(ref);
      // Assess
      expect(new URL(callbackUrl).pathname).toBe('/v1/daraja/demo/stk');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ResultCode: 0, ResultDesc: 'Accepted' });
      expect(types(events)).toEqual(['TransactionSucceeded']);
      expect(events[0]!.data).toMatchObject({
        status: 'SUCCEEDED',
        providerTransactionId: 'NLJ7RT61SV',
        amount: { value: '1', currency: 'KES' },
        party: { idType: 'MSISDN', id: '254708374149' },
      });
    });

    it('turns a cancelled prompt into TransactionFailed with REJECTED_BY_CUSTOMER', async () => {
      const ref = unique('ws_CO_');
      await register({ kind: 'stk', reference: ref, amount: '1' });
      const res = await post('/v1/daraja/demo/stk', stk('stk-cancelled.json', ref));
      const events = await eventsFor(ref);
      expect(res.body).toEqual({ ResultCode: 0, ResultDesc: 'Accepted' });
      expect(types(events)).toEqual(['TransactionFailed']);
      expect(events[0]!.data).toMatchObject({
        reason: { code: 'REJECTED_BY_CUSTOMER', providerCode: '1032' },
      });
    });

    it('never reports a success whose amount differs from the registered one: TransactionConflict, AMBIGUOUS, escalated', async () => {
      const ref = unique('ws_CO_');
      await register({ kind: 'stk', reference: ref, amount: '500' });
      const res = await post('/v1/daraja/demo/stk', stk('stk-success.json', ref));
      const events = await eventsFor(ref);
      const view = await relay.admin('GET', `/v1/transactions/daraja/demo/${ref}`);
      expect(res.status).toBe(200);
      expect(types(events)).toEqual(['TransactionAmbiguous', 'TransactionConflict', 'TransactionEscalated']);
      expect(events[1]!.data).toMatchObject({ conflict: { kind: 'AMOUNT_MISMATCH' } });
      expect(view.body.transaction.status).toBe('AMBIGUOUS');
    });

    it('never reports a success paid from another phone than the registered msisdn: TransactionConflict', async () => {
      const ref = unique('ws_CO_');
      await register({ kind: 'stk', reference: ref, amount: '1', msisdn: '254711111111' });
      await post('/v1/daraja/demo/stk', stk('stk-success.json', ref));
      const events = await eventsFor(ref);
      const view = await relay.admin('GET', `/v1/transactions/daraja/demo/${ref}`);
      expect(types(events)).toEqual(['TransactionAmbiguous', 'TransactionConflict', 'TransactionEscalated']);
      expect(events[1]!.data).toMatchObject({ conflict: { kind: 'MSISDN_MISMATCH' } });
      expect(view.body.transaction.status).toBe('AMBIGUOUS');
    });
  });

  describe('B2C results and queue timeouts', () => {
    it('makes a queue-timeout echo AMBIGUOUS, then the late result SUCCEEDED, and never stores the SecurityCredential', async () => {
      // Prepare
      const ocid = unique('10571-');
      await register({ kind: 'b2c', reference: ocid, amount: '10', msisdn: '254708374149' });
      const timeout = { ...fixture('b2c-timeout-echo.json'), OriginatorConversationID: ocid };
      const result = fixture('b2c-result-success.json');
      result.Result.OriginatorConversationID = ocid;
      // Act
      const first = await post('/v1/daraja/demo/b2c/timeout', timeout);
      const second = await post('/v1/daraja/demo/b2c/result', result);
      const events = await eventsFor(ocid);
      const items = await relay.store.listTransactionItems({
        provider: 'daraja',
        account: 'demo',
        reference: ocid,
      });
      // Assess
      expect(first.body).toEqual({ ResultCode: 0, ResultDesc: 'Accepted' });
      expect(second.body).toEqual({ ResultCode: 0, ResultDesc: 'Accepted' });
      expect(types(events)).toEqual(['TransactionAmbiguous', 'TransactionSucceeded']);
      expect(events[0]!.data).toMatchObject({ status: 'AMBIGUOUS', reason: { code: 'TIMED_OUT' } });
      expect(events[1]!.data).toMatchObject({
        providerTransactionId: 'NLJ41HAY6Q',
        amount: { value: '10', currency: 'KES' },
      });
      const stored = JSON.stringify(items);
      expect(stored).toContain('[REDACTED]');
      expect(stored).not.toContain('REDACT-ME-c2VjcmV0');
    });

    it('finds the transaction of a result that carries only the ConversationID, through the alias', async () => {
      const ocid = unique('29112-');
      const conversationId = unique('AG_');
      await register({ kind: 'b2c', reference: ocid, amount: '10' });
      const timeout = {
        Result: {
          ResultType: 1,
          ResultCode: 1037,
          OriginatorConversationID: ocid,
          ConversationID: conversationId,
        },
      };
      const result = fixture('b2c-result-success.json');
      delete result.Result.OriginatorConversationID;
      result.Result.ConversationID = conversationId;
      await post('/v1/daraja/demo/b2c/timeout', timeout);
      await post('/v1/daraja/demo/b2c/result', result);
      const events = await eventsFor(ocid);
      expect(types(events)).toEqual(['TransactionAmbiguous', 'TransactionSucceeded']);
    });

    it('turns a failed B2C result (2001, the initiator credential) into TransactionFailed NOT_ALLOWED (INVALID_INITIATOR)', async () => {
      const ocid = unique('29112-');
      await register({ kind: 'b2c', reference: ocid });
      const result = fixture('b2c-result-failure.json');
      result.Result.OriginatorConversationID = ocid;
      await post('/v1/daraja/demo/b2c/result', result);
      const events = await eventsFor(ocid);
      expect(types(events)).toEqual(['TransactionFailed']);
      expect(events[0]!.data).toMatchObject({
        reason: { code: 'NOT_ALLOWED', providerCode: '2001' },
        reasonDetail: 'INVALID_INITIATOR',
      });
    });
  });

  describe('transaction-status results', () => {
    it('applies a Completed status result to the queried transaction, found by the original OriginatorConversationID', async () => {
      const original = unique('3211-');
      await register({ kind: 'b2c', reference: original, amount: '300' });
      const result = fixture('status-result.json');
      result.Result.ResultParameters.ResultParameter.find(
        (p: { Key: string }) => p.Key === 'OriginatorConversationID',
      ).Value = original;
      const res = await post('/v1/daraja/demo/status/result', result);
      const events = await eventsFor(original);
      expect(res.body).toEqual({ ResultCode: 0, ResultDesc: 'Accepted' });
      expect(types(events)).toEqual(['TransactionSucceeded']);
      expect(events[0]!.data).toMatchObject({
        providerTransactionId: 'MBN31H462N',
        amount: { value: '300', currency: 'KES' },
        party: { id: '254708374149' },
      });
    });

    it('keeps a status timeout notice in the queried transaction’s history and publishes nothing: the query timed out, not the payment', async () => {
      const ocid = unique('3211-');
      await register({ kind: 'b2c', reference: ocid });
      const res = await post('/v1/daraja/demo/status/timeout', {
        Initiator: 'testapi',
        SecurityCredential: 'REDACT-ME-status',
        CommandID: 'TransactionStatusQuery',
        OriginatorConversationID: ocid,
      });
      const events = await eventsFor(ocid);
      const view = await relay.admin('GET', `/v1/transactions/daraja/demo/${ocid}`);
      expect(res.body).toEqual({ ResultCode: 0, ResultDesc: 'Accepted' });
      expect(types(events)).toEqual([]);
      expect(view.body.transaction.status).toBe('PENDING');
      expect(view.body.history.some((h: { route?: string }) => h.route === 'status-timeout')).toBe(true);
    });
  });

  describe('C2B validation and confirmation', () => {
    const validation = (fields: Record<string, unknown> = {}) => ({
      ...fixture('c2b-validation.json'),
      TransID: unique('RKT'),
      ...fields,
    });
    const decided = async (transId: string) =>
      (await eventsFor(transId)).filter((e) => e.metadata.type === 'C2BValidationDecided');

    it('accepts a request that passes every rule and publishes C2BValidationDecided', async () => {
      const body = validation();
      const res = await post('/v1/daraja/demo/c2b/validation', body);
      const events = await decided(body.TransID);
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ResultCode: '0', ResultDesc: 'Accepted' });
      expect(events).toHaveLength(1);
      expect(events[0]!.data).toMatchObject({
        decision: 'accept',
        resultCode: '0',
        rule: 'all-rules-passed',
        deadlineApplied: false,
        transId: body.TransID,
        billRefNumber: 'ACC-001',
        amount: { value: '10', currency: 'KES' },
        msisdn: '25470****149',
      });
    });

    it('rejects an unknown-format account number with C2B00012', async () => {
      const body = validation({ BillRefNumber: 'not valid!' });
      const res = await post('/v1/daraja/demo/c2b/validation', body);
      const events = await decided(body.TransID);
      expect(res.body).toEqual({ ResultCode: 'C2B00012', ResultDesc: 'Rejected' });
      expect(events[0]!.data).toMatchObject({
        decision: 'reject',
        resultCode: 'C2B00012',
        rule: 'bill-ref-pattern',
      });
    });

    it('rejects a payment to another short code with C2B00015', async () => {
      const res = await post('/v1/daraja/demo/c2b/validation', validation({ BusinessShortCode: '174379' }));
      expect(res.body).toEqual({ ResultCode: 'C2B00015', ResultDesc: 'Rejected' });
    });

    it('answers with the default within the deadline when the partner endpoint never answers, and records it', async () => {
      // Prepare
      const body = validation();
      // Act: without the deadline the answer would never come (the partner endpoint never answers).
      const res = await post('/v1/daraja/slow/c2b/validation', body);
      // The decision is recorded after the answer left at the deadline: wait for its event, not for time.
      const events = await vi.waitFor(
        async () => {
          const found = await decided(body.TransID);
          if (found.length === 0) throw new Error('C2BValidationDecided not published yet');
          return found;
        },
        { timeout: 30_000, interval: 50 },
      );
      // Assess
      expect(res.body).toEqual({ ResultCode: 'C2B00016', ResultDesc: 'Rejected' });
      expect(events).toHaveLength(1);
      expect(events[0]!.data).toMatchObject({
        decision: 'reject',
        rule: 'default',
        deadlineApplied: true,
        defaultApplied: true,
        deadlineMs: 300,
      });
    });

    it("answers with the partner endpoint's own rejection code and sends it the payload", async () => {
      const body = validation();
      const res = await post('/v1/daraja/partnered/c2b/validation', body);
      const events = await decided(body.TransID);
      expect(res.body).toEqual({ ResultCode: 'C2B00014', ResultDesc: 'Rejected' });
      expect(events[0]!.data).toMatchObject({ rule: 'partner-endpoint', deadlineApplied: false });
      const seen = partnerRequests.find((r) => (r.body as { TransID: string }).TransID === body.TransID);
      expect(seen?.headers).toMatchObject({
        authorization: 'Bearer partner-token-0123456789',
        'x-relay-account': 'partnered',
      });
    });

    it('answers a repeated validation of the same TransID with the first decision and publishes it once', async () => {
      const body = validation();
      const first = await post('/v1/daraja/demo/c2b/validation', body);
      const repeat = await post('/v1/daraja/demo/c2b/validation', { ...body, BillRefNumber: 'now invalid!' });
      const events = await decided(body.TransID);
      expect(first.body).toEqual({ ResultCode: '0', ResultDesc: 'Accepted' });
      expect(repeat.body).toEqual({ ResultCode: '0', ResultDesc: 'Accepted' });
      expect(events).toHaveLength(1);
    });

    it('creates one SUCCEEDED c2b transaction from repeated confirmations, linked to its validation', async () => {
      // Prepare
      const body = validation();
      await post('/v1/daraja/demo/c2b/validation', body);
      const confirmation = { ...fixture('c2b-confirmation.json'), TransID: body.TransID };
      // Act
      const first = await post('/v1/daraja/demo/c2b/confirmation', confirmation);
      const repeat = await post('/v1/daraja/demo/c2b/confirmation', confirmation);
      const events = await eventsFor(body.TransID);
      const view = await relay.admin('GET', `/v1/transactions/daraja/demo/${body.TransID}`);
      // Assess
      expect(first.body).toEqual({ ResultCode: 0, ResultDesc: 'Success' });
      expect(repeat.body).toEqual({ ResultCode: 0, ResultDesc: 'Success' });
      expect(types(events)).toEqual(['C2BValidationDecided', 'TransactionSucceeded']);
      expect(events[1]!.data).toMatchObject({
        kind: 'c2b',
        status: 'SUCCEEDED',
        amount: { value: '10', currency: 'KES' },
      });
      expect(view.body.transaction).toMatchObject({ kind: 'c2b', status: 'SUCCEEDED' });
      expect(view.body.transaction.attributes).toMatchObject({
        ValidationDecision: 'accept',
        ValidationResultCode: '0',
      });
    });

    it("answers a malformed validation request with Daraja's C2B00016 rejection and quarantines it", async () => {
      const res = await post('/v1/daraja/demo/c2b/validation', { TransAmount: '10' });
      const events = await relay.flush();
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ResultCode: 'C2B00016', ResultDesc: 'Rejected' });
      expect(
        events.some(
          (e) =>
            e.metadata.type === 'CallbackRejected' &&
            (e.data as { errorCode: string }).errorCode === 'SCHEMA_VALIDATION_FAILED' &&
            (e.data as { route: string }).route === 'c2b-validation',
        ),
      ).toBe(true);
    });
  });

  describe('source-IP allow-list and path secret', () => {
    it('refuses a callback from an address outside the allow-list with 403 and CallbackRejected, redacted in quarantine', async () => {
      // Prepare
      const ocid = unique('10571-');
      const timeout = { ...fixture('b2c-timeout-echo.json'), OriginatorConversationID: ocid };
      // Act
      const res = await post('/v1/daraja/demo/b2c/timeout', timeout, STRANGER_IP);
      // A refusal waits at most 1 s for its quarantine write (and the CallbackRejected in it): on a loaded
      // machine it lands after the answer.
      const entry = await awaitRecord(async () =>
        (await relay.store.listQuarantine(new Date().toISOString().slice(0, 10), 200)).find((q) =>
          String(q.body).includes(ocid),
        ),
      );
      const events = await relay.flush();
      // Assess
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN_SOURCE');
      const rejected = events.find(
        (e) =>
          e.metadata.type === 'CallbackRejected' && (e.data as { sourceIp: string }).sourceIp === STRANGER_IP,
      );
      expect(rejected?.data).toMatchObject({ account: 'demo', route: 'b2c-timeout', httpStatus: 403 });
      expect(entry).toBeDefined();
      expect(String(entry!.body)).not.toContain('REDACT-ME');
    });

    it('accepts but records a stranger in log-only mode', async () => {
      const ref = unique('ws_CO_');
      const res = await post('/v1/daraja/lenient/stk', stk('stk-cancelled.json', ref), STRANGER_IP);
      const view = await relay.admin('GET', `/v1/transactions/daraja/lenient/${ref}`);
      expect(res.status).toBe(200);
      const callback = view.body.history.find((h: { type: string }) => h.type === 'callback');
      expect(callback.verification.sourceIp).toMatchObject({ verdict: 'denied', mode: 'log-only' });
    });

    it('requires the path secret of an account that has one', async () => {
      const ref = unique('ws_CO_');
      const without = await post('/v1/daraja/guarded/stk', stk('stk-cancelled.json', ref));
      const withSecret = await post(`/v1/daraja/guarded/${SECRET}/stk`, stk('stk-cancelled.json', ref));
      expect(without.status).toBe(401);
      expect(withSecret.body).toEqual({ ResultCode: 0, ResultDesc: 'Accepted' });
    });

    it('answers malformed JSON on a result route with a 400 JSON error, never a 5xx', async () => {
      const res = await relay.request('POST', '/v1/daraja/demo/b2c/result', '{"Result":', {
        'x-forwarded-for': SAFARICOM_IP,
        'content-type': 'application/json',
      });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('MALFORMED_JSON');
    });
  });
});
