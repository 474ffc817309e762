/**
 * An MTN MoMo account and Airtel Money accounts driven end to end for the interleaving properties:
 * callbacks through receiveCallback (real routes, path secret, parsers, Airtel hash check), an ingress
 * buffer for deliveries taken while the store is down (applied later with applyBufferedCallback),
 * registrations through registerTransaction, poll cycles against a scripted MoMo / Airtel (token + status
 * GET / enquiry: the provider's truth, PENDING, 404 NOT_FOUND, 5xx) and operator resolutions through
 * resolveByHand, on the in-memory store.
 */
import { createHmac } from 'node:crypto';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { applyBufferedCallback } from '../../../shared/app/buffer/apply-buffered-callback';
import type { RelayMetrics } from '../../../shared/app/ports';
import { runPollCycle } from '../../../shared/app/reconciliation/poll-cycle';
import { resolveByHand } from '../../../shared/app/transactions/operate-transaction';
import { registerTransaction } from '../../../shared/app/transactions/register-transaction';
import { parseConfig } from '../../../shared/config/load';
import { accountKey } from '../../../shared/config/schema';
import { receiveCallback } from '../../../shared/http/callback-endpoint';
import { STATUS_API_FACTORIES } from '../../../shared/providers/status-api-registry';
import type { StatusApi } from '../../../shared/providers/types';
import { MemoryIngressBuffer } from '../../helpers/ingress-buffer';
import { jsonCallback, quietServices } from '../../helpers/quiet-services';

export const MOMO_SECRET = 'momo-path-secret-0123456789';
export const AIRTEL_KEY = 'airtel-callback-key-0123456789';
export const WRONG_KEY = 'not-the-airtel-key-9876543210';
export const MOMO_REF = '6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f';
export const AIRTEL_REF = 'AT-REF-0001';
/** Another request-to-pay the partner registered with the same externalId (still PENDING at MTN). */
export const MOMO_REF_B = '7f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f';
export const EXTERNAL_ID = 'order-8841';
export const OTHER_EXTERNAL_ID = 'attacker-order';
export const REG_PHONE = '46733123459';
export const OTHER_PHONE = '46733999999';
export const AIRTEL_PHONE = '256700123456';
export const GEN_FTID = '363440463';
export const FORGED_FTID = '999000111';
export const GEN_AIRTEL_ID = 'MP210603.1234.A00001';
export const FORGED_AIRTEL_ID = 'MP999999.9999.Z99999';
export const MOMO_AMOUNT = '100';
export const OTHER_AMOUNT = '1';
export const AIRTEL_AMOUNT = '5000';

export type MomoKind = 'requesttopay' | 'transfer' | 'refund';
export type AirtelMode = 'enforce' | 'log-only' | 'off';
export type Subject =
  { provider: 'momo'; kind: MomoKind } | { provider: 'airtel'; mode: AirtelMode; confirmSuccess: boolean };

/** What the provider knows happened. NOT_FOUND: the request was never accepted (no callback ever comes). */
export type Outcome = 'SUCCESS' | 'FAILED' | 'PENDING' | 'NOT_FOUND';

/** What the status API answers on the next poll. */
export type ApiMode = 'truth' | 'down' | 'pending';

const noMetrics: RelayMetrics = { count: () => {}, timing: () => {}, flush: () => {} };

export const airtelAccount = (s: Extract<Subject, { provider: 'airtel' }>) =>
  `${s.mode === 'log-only' ? 'lo' : s.mode}${s.confirmSuccess ? 'c' : 'n'}`;

const AIRTEL_ACCOUNTS = Object.fromEntries(
  (['enforce', 'log-only', 'off'] as const).flatMap((mode) =>
    [true, false].map((confirmSuccess) => [
      airtelAccount({ provider: 'airtel', mode, confirmSuccess }),
      {
        hashMode: mode,
        ...(mode === 'off' ? {} : { callbackKey: AIRTEL_KEY }),
        confirmSuccess,
        country: 'UG',
        currency: 'UGX',
        api: { baseUrl: 'https://airtel.example.com', clientId: 'client-id', clientSecret: 'client-secret' },
      },
    ]),
  ),
);

export const config = parseConfig({
  management: { bearerToken: 'management-token-0123456789' },
  reconciliation: { windowSeconds: 3600 },
  accounts: {
    momo: {
      gh: {
        pathSecret: MOMO_SECRET,
        currency: 'EUR',
        api: {
          baseUrl: 'https://momo.example.com',
          apiUser: 'api-user',
          apiKey: 'api-key',
          collectionSubscriptionKey: 'collection-key',
          disbursementSubscriptionKey: 'disbursement-key',
        },
      },
    },
    airtel: AIRTEL_ACCOUNTS,
  },
});

/** A MoMo body (callback or status GET answer). */
export function momoBody(o: {
  kind: MomoKind;
  status: string;
  amount?: string;
  phone?: string;
  ftid?: string;
  externalId?: string;
  reason?: string;
}): string {
  const partyKey = o.kind === 'requesttopay' ? 'payer' : 'payee';
  return JSON.stringify({
    ...(o.ftid ? { financialTransactionId: o.ftid } : {}),
    externalId: o.externalId ?? EXTERNAL_ID,
    amount: o.amount ?? MOMO_AMOUNT,
    currency: 'EUR',
    ...(o.kind === 'refund' ? {} : { [partyKey]: { partyIdType: 'MSISDN', partyId: o.phone ?? REG_PHONE } }),
    payerMessage: 'Order 8841',
    payeeNote: 'thanks',
    status: o.status,
    ...(o.reason ? { reason: o.reason } : {}),
  });
}

/** The genuine MoMo body of an outcome (what the callback and the status GET say). */
export function genuineMomoBody(kind: MomoKind, outcome: Outcome): string {
  if (outcome === 'SUCCESS') return momoBody({ kind, status: 'SUCCESSFUL', ftid: GEN_FTID });
  if (outcome === 'FAILED') return momoBody({ kind, status: 'FAILED', reason: 'APPROVAL_REJECTED' });
  return momoBody({ kind, status: 'PENDING' });
}

export function airtelBody(o: { id?: string; status: string; moneyId?: string; message?: string }) {
  return {
    transaction: {
      id: o.id ?? AIRTEL_REF,
      message:
        o.message ??
        (o.status === 'TS'
          ? 'Paid UGX 5000 to MERCHANT'
          : o.status === 'TF'
            ? 'Transaction failed: insufficient balance'
            : 'Transaction is ambiguous'),
      status_code: o.status,
      airtel_money_id: o.moneyId ?? '',
    },
  };
}

/** A signed Airtel callback (recipe stringify-without-hash) with `key`, or none. */
export function signedAirtel(body: object, key: string | undefined): string {
  const text = JSON.stringify(body);
  if (!key) return text;
  const hash = createHmac('sha256', Buffer.from(key, 'utf8')).update(text).digest('base64');
  return JSON.stringify({ ...body, hash });
}

export function genuineAirtelBody(subject: Extract<Subject, { provider: 'airtel' }>, outcome: Outcome) {
  const status = outcome === 'SUCCESS' ? 'TS' : outcome === 'FAILED' ? 'TF' : 'TA';
  const body = airtelBody({ status, moneyId: outcome === 'SUCCESS' ? GEN_AIRTEL_ID : '' });
  // Airtel signs when callback authentication is on (the account checks it); an account in `off` gets none.
  return signedAirtel(body, subject.mode === 'off' ? undefined : AIRTEL_KEY);
}

export function momoAirtelWorld(opts: { subject: Subject; truth: Outcome }) {
  const { subject, truth } = opts;
  const account = subject.provider === 'momo' ? 'gh' : airtelAccount(subject);
  const reference = subject.provider === 'momo' ? MOMO_REF : AIRTEL_REF;
  const kind = subject.provider === 'momo' ? subject.kind : 'payment';
  let now = Date.parse('2026-11-23T10:00:01.000Z');
  const store = new MemoryStore({ now: () => new Date(now) });
  const buffer = new MemoryIngressBuffer();
  let apiMode: ApiMode = 'truth';
  /** The provider decided (before: its status answers PENDING; its genuine callback is not sent yet). */
  let decided = false;
  const asked: string[] = [];

  const momoApi = (url: string): Response => {
    if (url.includes('/token/'))
      return Response.json({
        access_token: 'token-0123456789',
        token_type: 'access_token',
        expires_in: 3600,
      });
    asked.push(url);
    if (apiMode === 'down')
      return Response.json({ code: 'INTERNAL_PROCESSING_ERROR', message: 'down' }, { status: 500 });
    if (url.toLowerCase().includes(MOMO_REF_B))
      return new Response(genuineMomoBody('requesttopay', 'PENDING'));
    // MTN knows the reference only under its own product and kind (another kind's GET: 404).
    const ownPath = subject.provider === 'momo' && url.includes(`/v1_0/${subject.kind}/`);
    if (!url.toLowerCase().includes(MOMO_REF) || !ownPath)
      return Response.json({ code: 'RESOURCE_NOT_FOUND', message: 'not found' }, { status: 404 });
    if (truth === 'NOT_FOUND')
      return Response.json(
        { code: 'RESOURCE_NOT_FOUND', message: 'Requested resource was not found.' },
        { status: 404 },
      );
    const k = subject.provider === 'momo' ? subject.kind : 'requesttopay';
    if (apiMode === 'pending' || !decided) return new Response(genuineMomoBody(k, 'PENDING'));
    return new Response(genuineMomoBody(k, truth));
  };
  const airtelApi = (url: string): Response => {
    if (url.includes('/oauth2/token'))
      return Response.json({ access_token: 'token-0123456789', expires_in: '180', token_type: 'bearer' });
    asked.push(url);
    if (apiMode === 'down') return new Response('{"error":"down"}', { status: 502 });
    const notFound = () =>
      Response.json(
        { status: { response_code: 'DP00800001025', message: 'Transaction not found', success: false } },
        { status: 404 },
      );
    if (!url.includes(AIRTEL_REF) || truth === 'NOT_FOUND') return notFound();
    const status =
      apiMode === 'pending' || !decided || truth === 'PENDING' ? 'TIP' : truth === 'SUCCESS' ? 'TS' : 'TF';
    return Response.json({
      data: {
        transaction: {
          airtel_money_id: status === 'TS' ? GEN_AIRTEL_ID : '',
          id: AIRTEL_REF,
          message: status === 'TF' ? 'Transaction failed: insufficient balance' : 'ok',
          status,
        },
      },
      status: {
        response_code: status === 'TF' ? 'DP00800001007' : 'DP00800001001',
        message: 'ok',
        success: true,
        code: '200',
      },
    });
  };
  let drift = 0;
  const fetchImpl = (async (url: string) => {
    const u = String(url);
    return u.includes('momo.example.com') ? momoApi(u) : airtelApi(u);
  }) as unknown as typeof fetch;
  const base = {
    ...quietServices(config, store, () => now),
    ingressBuffer: buffer,
    metrics: noMetrics,
    fetchImpl,
  };
  // The real status clients, sleeping on a virtual clock (retries and the rate limit cost no real time).
  const clients = new Map<string, StatusApi | undefined>();
  const statusApi = (provider: string, accountId: string) => {
    const id = accountKey(provider, accountId);
    if (!clients.has(id)) {
      const acc = config.accounts.get(id);
      const factory = STATUS_API_FACTORIES[provider];
      clients.set(
        id,
        factory && acc
          ? factory(
              { provider, id: accountId, pathSecret: acc.pathSecret, settings: acc.settings },
              {
                fetch: fetchImpl,
                now: () => now + drift,
                sleep: async (ms) => {
                  drift += ms;
                },
                log: base.log,
              },
            )
          : undefined,
      );
    }
    return clients.get(id);
  };
  const services = { ...base, statusApi, metrics: noMetrics };

  /** Posts a callback; `down`: the store fails, so it goes to the buffer. Returns the HTTP status. */
  const post = async (path: string, body: string, down = false, method: 'POST' | 'PUT' = 'POST') => {
    if (down) store.failure = 'error';
    try {
      return (
        await receiveCallback(
          services,
          jsonCallback({ method, path, body, sourceIp: '198.51.100.7', receivedAt: new Date(now - 1000) }),
        )
      ).statusCode;
    } finally {
      store.failure = 'none';
    }
  };
  const momoPath = (k: string, ref?: string) =>
    ref === undefined ? `/v1/momo/gh/${MOMO_SECRET}/${k}` : `/v1/momo/gh/${MOMO_SECRET}/${k}/${ref}`;
  const airtelPath = `/v1/airtel/${account}/callback`;

  const poll = async (ms = 60_000) => {
    now += ms;
    await runPollCycle(services as never, { owner: 'p1' });
  };
  const register = (input: { amount: boolean; msisdn: boolean; externalId: boolean }) =>
    registerTransaction(services, {
      provider: subject.provider,
      account,
      kind,
      reference,
      ...(input.amount
        ? subject.provider === 'momo'
          ? { amount: MOMO_AMOUNT, currency: 'EUR' }
          : { amount: AIRTEL_AMOUNT, currency: 'UGX' }
        : {}),
      ...(input.msisdn && !(subject.provider === 'momo' && subject.kind === 'refund')
        ? { msisdn: subject.provider === 'momo' ? REG_PHONE : AIRTEL_PHONE }
        : {}),
      ...(input.externalId ? { externalId: EXTERNAL_ID } : {}),
    });
  const registerOther = () =>
    registerTransaction(services, {
      provider: 'momo',
      account: 'gh',
      kind: 'requesttopay',
      reference: MOMO_REF_B,
      amount: MOMO_AMOUNT,
      currency: 'EUR',
      externalId: EXTERNAL_ID,
    });
  const resolve = (status: 'SUCCEEDED' | 'FAILED') =>
    resolveByHand(
      services as never,
      { provider: subject.provider, account, reference },
      { status, note: 'checked with the provider' },
      { actor: { kind: 'person', id: 'jane', name: 'jane' } as never },
    );
  const tx = () => store.getTransaction({ provider: subject.provider, account, reference });
  let applied = 0;
  return {
    subject,
    truth,
    account,
    reference,
    kind,
    store,
    buffer,
    services,
    post,
    momoPath,
    airtelPath,
    poll,
    register,
    registerOther,
    txOther: () => store.getTransaction({ provider: 'momo', account: 'gh', reference: MOMO_REF_B }),
    resolve,
    tx,
    asked,
    applyBuffered: async (message: { body: string }) =>
      applyBufferedCallback(services, JSON.parse(message.body)),
    drained: () => applied,
    setDrained: (k: number) => {
      applied = k;
    },
    setApi: (mode: ApiMode) => {
      apiMode = mode;
    },
    decide: () => {
      decided = true;
    },
    isDecided: () => decided,
    advance: (ms: number) => {
      now += ms;
    },
    now: () => new Date(now).toISOString(),
  };
}
