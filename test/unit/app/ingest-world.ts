/**
 * A Daraja account driven end to end for the ingest properties: callbacks through receiveCallback (real
 * routes and parsers) from Daraja's address or a forger's, an ingress buffer for deliveries taken while
 * the store is down (applied later with applyBufferedCallback), registrations through registerTransaction,
 * poll cycles against a scripted Daraja (STK query + transaction status query), pulled statement rows
 * through StatementLedger and operator resolutions through resolveByHand.
 */
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { MemoryStatementStore } from '../../../shared/adapters/memory/statement-store';
import { applyBufferedCallback } from '../../../shared/app/buffer/apply-buffered-callback';
import type { RelayMetrics } from '../../../shared/app/ports';
import { runPollCycle } from '../../../shared/app/reconciliation/poll-cycle';
import { statusApiRegistry } from '../../../shared/app/reconciliation/status-apis';
import { StatementLedger } from '../../../shared/app/statements/statement-sink';
import { registerTransaction } from '../../../shared/app/transactions/register-transaction';
import { resolveByHand } from '../../../shared/app/transactions/operate-transaction';
import { parseConfig } from '../../../shared/config/load';
import { receiveCallback } from '../../../shared/http/callback-endpoint';
import { MemoryIngressBuffer } from '../../helpers/ingress-buffer';
import { jsonCallback, quietServices } from '../../helpers/quiet-services';

export const SECRET = 'daraja-path-secret-0123456789';
export const FORGER_IP = '203.0.113.9';
export const DARAJA_IP = '196.201.214.200';
export const REF = 'ws_CO_191220191020363925';
export const GEN_RECEIPT = 'NLJ7RT61SV';
export const FORGED_RECEIPT = 'QFORGED001';
export const REG_PHONE = '254708374149';
export const OTHER_PHONE = '254711999999';

const noMetrics: RelayMetrics = { count: () => {}, timing: () => {}, flush: () => {} };

export function stkBody(o: {
  status: 'paid' | 'cancelled';
  amount: string;
  receipt: string;
  phone: string;
  reference?: string;
}): string {
  const ref = o.reference ?? REF;
  if (o.status === 'cancelled')
    return JSON.stringify({
      Body: {
        stkCallback: {
          MerchantRequestID: '29115-34620561-1',
          CheckoutRequestID: ref,
          ResultCode: 1032,
          ResultDesc: 'Request cancelled by user',
        },
      },
    });
  return JSON.stringify({
    Body: {
      stkCallback: {
        MerchantRequestID: '29115-34620561-1',
        CheckoutRequestID: ref,
        ResultCode: 0,
        ResultDesc: 'The service request is processed successfully.',
        CallbackMetadata: {
          Item: [
            { Name: 'Amount', Value: Number(o.amount) },
            { Name: 'MpesaReceiptNumber', Value: o.receipt },
            { Name: 'Balance' },
            { Name: 'TransactionDate', Value: 20261123100015 },
            { Name: 'PhoneNumber', Value: Number(o.phone) },
          ],
        },
      },
    },
  });
}

export function c2bBody(o: { receipt: string; amount: string; phone: string }): string {
  return JSON.stringify({
    TransactionType: 'Pay Bill',
    TransID: o.receipt,
    TransTime: '20261123130015',
    TransAmount: o.amount,
    BusinessShortCode: '600638',
    BillRefNumber: 'ACC-001',
    InvoiceNumber: '',
    OrgAccountBalance: '49197.00',
    ThirdPartyTransID: '',
    MSISDN: o.phone,
    FirstName: 'John',
    MiddleName: '',
    LastName: 'Doe',
  });
}

/** Daraja's transaction status result for a query (its ids), about a receipt. */
export function statusResultBody(o: {
  query: { oc: string; c: string };
  receipt: string;
  amount: string;
  completed: boolean;
  occasion?: string;
}): string {
  return JSON.stringify({
    Result: {
      ConversationID: o.query.c,
      OriginatorConversationID: o.query.oc,
      ReferenceData: {
        ReferenceItem: o.occasion ? { Key: 'Occasion', Value: o.occasion } : { Key: 'Occasion' },
      },
      ResultCode: 0,
      ResultDesc: 'The service request is processed successfully.',
      ResultParameters: {
        ResultParameter: [
          { Key: 'ReasonType', Value: 'Lipa na M-Pesa Online' },
          { Key: 'TransactionStatus', Value: o.completed ? 'Completed' : 'Failed' },
          { Key: 'Amount', Value: Number(o.amount) },
          { Key: 'ReceiptNo', Value: o.receipt },
          { Key: 'DebitPartyName', Value: `${REG_PHONE} - John Doe` },
        ],
      },
      ResultType: 0,
      TransactionID: o.receipt,
    },
  });
}

export interface Truth {
  /** What Daraja knows happened to the push. */
  outcome: 'paid' | 'cancelled';
  /** What the customer paid (Daraja's amount). */
  amount: string;
}

export function ingestWorld(opts: {
  mode: 'log-only' | 'off' | 'enforce';
  truth: Truth;
  /** The STK query is answered (else 500). Changed by the test between polls. */
  apiUp?: boolean;
  confirmSuccess?: boolean;
}) {
  const config = parseConfig({
    management: { bearerToken: 'management-token-0123456789' },
    reconciliation: { windowSeconds: 3600 },
    accounts: {
      daraja: {
        ke: {
          pathSecret: SECRET,
          shortCode: '600638',
          sourceIp: { mode: opts.mode },
          ...(opts.confirmSuccess !== undefined ? { confirmSuccess: opts.confirmSuccess } : {}),
          api: {
            baseUrl: 'https://daraja.example.com',
            consumerKey: 'consumer-key',
            consumerSecret: 'consumer-secret',
            initiator: 'testapi',
            securityCredential: 'c2VjcmV0',
            passkey: 'stk-passkey',
          },
        },
      },
    },
  });
  let now = Date.parse('2026-11-23T10:00:01.000Z');
  const store = new MemoryStore({ now: () => new Date(now) });
  const buffer = new MemoryIngressBuffer();
  const statements = new MemoryStatementStore();
  let apiUp = opts.apiUp ?? true;
  /** Status queries the poller sent (transactionstatus): their ids and what they asked. */
  const queries: { oc: string; c: string; body: Record<string, unknown> }[] = [];
  const asked: string[] = [];
  const daraja = (url: string, body: Record<string, unknown>): Response => {
    if (url.includes('/oauth/'))
      return Response.json({ access_token: 'token-0123456789', expires_in: '3599' });
    asked.push(url);
    if (!apiUp) return new Response('{"errorCode":"500.001.1001","errorMessage":"down"}', { status: 500 });
    if (url.includes('/stkpushquery/')) {
      const paid = opts.truth.outcome === 'paid';
      return Response.json({
        ResponseCode: '0',
        ResponseDescription: 'The service request has been accepted successsfully',
        MerchantRequestID: '29115-34620561-1',
        CheckoutRequestID: String(body.CheckoutRequestID ?? REF),
        ResultCode: paid ? '0' : '1032',
        ResultDesc: paid ? 'The service request is processed successfully.' : 'Request cancelled by user',
      });
    }
    const n = queries.length + 1;
    const q = { oc: `AG_Q_${n}-oc`, c: `AG_Q_${n}`, body };
    queries.push(q);
    return Response.json({
      OriginatorConversationID: q.oc,
      ConversationID: q.c,
      ResponseCode: '0',
      ResponseDescription: 'Accept the service request successfully.',
    });
  };
  const services = {
    ...quietServices(config, store, () => now),
    ingressBuffer: buffer,
    metrics: noMetrics,
    fetchImpl: (async (url: string, init?: { body?: unknown }) => {
      const body = typeof init?.body === 'string' ? (JSON.parse(init.body) as Record<string, unknown>) : {};
      return daraja(String(url), body);
    }) as unknown as typeof fetch,
  };
  const reconcileServices = { ...services, statusApi: statusApiRegistry(services), metrics: noMetrics };
  /** Posts a callback; `down`: the store fails, so it goes to the buffer. Returns the HTTP status. */
  const post = async (route: string, body: string, sourceIp: string, down = false) => {
    if (down) store.failure = 'error';
    try {
      return (
        await receiveCallback(
          services,
          jsonCallback({
            path: `/v1/daraja/ke/${SECRET}/${route}`,
            body,
            sourceIp,
            receivedAt: new Date(now - 1000),
          }),
        )
      ).statusCode;
    } finally {
      store.failure = 'none';
    }
  };
  let applied = 0;
  /** Applies the buffered messages not applied yet (or all of them again, `again`). */
  const drain = async (again = false) => {
    const from = again ? 0 : applied;
    for (const m of buffer.messages.slice(from)) await applyBufferedCallback(services, JSON.parse(m.body));
    applied = buffer.messages.length;
  };
  const poll = async (ms = 60_000) => {
    now += ms;
    await runPollCycle(reconcileServices, { owner: 'p1' });
  };
  const register = (input: { amount?: string; msisdn?: string }) =>
    registerTransaction(services, {
      provider: 'daraja',
      account: 'ke',
      kind: 'stk',
      reference: REF,
      ...(input.amount ? { amount: input.amount, currency: 'KES' } : {}),
      ...(input.msisdn ? { msisdn: input.msisdn } : {}),
    });
  const ledger = new StatementLedger({ config, store, statements, clock: services.clock, log: services.log });
  let rowN = 0;
  const pullRow = (o: { receipt: string; amount: string; status?: string }) =>
    ledger.ingestRows(
      [
        {
          provider: 'daraja',
          account: 'ke',
          source: 'pull-api',
          providerId: o.receipt,
          time: '2026-11-23T10:00:15.000Z',
          amountIn: o.amount,
          amountOut: '0',
          currency: 'KES',
          kind: 'payment',
          status: o.status ?? 'COMPLETED',
          counterparty: '2547****149',
          origin: { ref: `pull ${++rowN}` },
        },
      ],
      { actor: { kind: 'system', name: 'pull' } as never },
    );
  const resolve = (status: 'SUCCEEDED' | 'FAILED') =>
    resolveByHand(
      reconcileServices as never,
      { provider: 'daraja', account: 'ke', reference: REF },
      { status, note: 'checked with Safaricom' },
      { actor: { kind: 'person', id: 'jane', name: 'jane' } as never },
    );
  const tx = (reference = REF) => store.getTransaction({ provider: 'daraja', account: 'ke', reference });
  const alias = (ns: string, id: string) =>
    store.getRecord({ provider: 'daraja', account: 'ke', namespace: `alias:${ns}`, id });
  return {
    config,
    store,
    buffer,
    services: reconcileServices,
    post,
    drain,
    poll,
    register,
    pullRow,
    resolve,
    tx,
    alias,
    queries,
    asked,
    setApi: (up: boolean) => {
      apiUp = up;
    },
    advance: (ms: number) => {
      now += ms;
    },
    now: () => new Date(now).toISOString(),
  };
}
