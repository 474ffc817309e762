/**
 * Airtel Money (Airtel Money Open API docs): token, RSA encryption key, signed push payment, refund, enquiry and
 * the status callback with a `hash` made by the configured recipe.
 */
import { createPrivateKey, createPublicKey, generateKeyPair, type KeyObject } from 'node:crypto';
import * as z from 'zod';
import type { ProviderState, SimContext } from '../core/context';
import { effectiveCallbackFaults, FaultHolder, refusedBy } from '../core/faults';
import { json, type Reply, type RequestContext, SimHttpError } from '../core/http';
import { digits } from '../core/ids';
import { maskMsisdn } from '../core/log';
import type { Router } from '../core/router';
import { applyStatusFaults } from '../core/status-faults';
import { jwtLikeToken, TokenStore } from '../core/tokens';
import type { ResolvedAirtelApp } from '../options';
import {
  type AirtelCallbackTransaction,
  type AirtelHashRecipe,
  buildAirtelCallback,
  isAirtelHashRecipe,
} from './hash';
import { AIRTEL_IN_PROGRESS, type AirtelOutcome, type AirtelStatus, airtelOutcome } from './outcomes';
import { AirtelSignatureError, verifyAirtelSignature } from './verify';

interface Envelope {
  code: string;
  message: string;
  result_code: string;
  response_code?: string;
  success: boolean;
}

function envelope(
  code: number,
  message: string,
  responseCode: string | undefined,
  success: boolean,
): Envelope {
  const e: Envelope = {
    code: String(code),
    message,
    result_code: success ? 'ESB000010' : 'ESB000008',
    success,
  };
  if (responseCode) e.response_code = responseCode;
  return e;
}

function airtelError(status: number, message: string, responseCode?: string): SimHttpError {
  return new SimHttpError(status, { status: envelope(status, message, responseCode, false) });
}

const TokenBody = z.object({
  client_id: z.string().min(1),
  client_secret: z.string().min(1),
  grant_type: z.string(),
});

const Amount = z.union([
  z.number(),
  z
    .string()
    .regex(/^\d+(\.\d+)?$/)
    .transform(Number),
]);

const PaymentBody = z.object({
  reference: z.string().min(1),
  subscriber: z.object({
    country: z.string().min(1),
    currency: z.string().optional(),
    msisdn: z.union([z.string(), z.number()]).transform(String),
  }),
  transaction: z.object({
    amount: Amount,
    country: z.string().optional(),
    currency: z.string().optional(),
    id: z.string().min(1),
  }),
});

/**
 * The Airtel Money Open API documentation names only `transaction.wallet_money_id` (the payment to refund). `transaction.id`, the
 * partner's own id for the refund (as Airtel's v2 refund takes it), is optional: with it the refund is a
 * transaction of its own, enquired at `/standard/v1/payments/refund/{id}` and called back like a payment.
 */
const RefundBody = z.object({
  transaction: z.object({
    airtel_money_id: z.string().optional(),
    wallet_money_id: z.string().optional(),
    id: z.string().min(1).max(64).optional(),
  }),
});

interface AirtelTransaction {
  /** A push payment, or a refund of one (`refundOf`: the refunded payment's partner id). */
  kind: 'payment' | 'refund';
  refundOf?: string;
  id: string;
  clientId: string;
  msisdn: string;
  amount: number;
  currency: string;
  country: string;
  reference: string;
  airtelMoneyId: string;
  outcome: AirtelOutcome;
  status: AirtelStatus;
  responseCode: string;
  message: string;
  callbackUrl: string | undefined;
  hashRecipe: AirtelHashRecipe | undefined;
  faults: FaultHolder;
  refunded: boolean;
  createdAt: number;
  updatedAt: number;
}

const pad = (n: number) => String(n).padStart(2, '0');

/** `MP210603.1234.A00001`-style id, as in the fixtures. */
function airtelMoneyId(): string {
  const d = new Date();
  const date = `${String(d.getUTCFullYear()).slice(2)}${pad(d.getUTCMonth() + 1)}${pad(d.getUTCDate())}`;
  return `MP${date}.${pad(d.getUTCHours())}${pad(d.getUTCMinutes())}.A${digits(5)}`;
}

export interface AirtelState extends ProviderState {
  /** The RSA public key the encryption-keys operation serves, as PEM. */
  publicKeyPem: string;
}

export interface RsaKeyPair {
  publicKey: KeyObject;
  privateKey: KeyObject;
}

let processKeyPair: Promise<RsaKeyPair> | undefined;

/**
 * The RSA pair behind `/v1/rsa/encryption-keys`. Generating a 2048-bit pair takes about 0.3 s, so one
 * pair is made per process and shared by every simulator in it, unless a private key is given.
 */
export function airtelKeyPair(privateKeyPem?: string): Promise<RsaKeyPair> {
  if (privateKeyPem) {
    const privateKey = createPrivateKey(privateKeyPem);
    return Promise.resolve({ privateKey, publicKey: createPublicKey(privateKey) });
  }
  processKeyPair ??= new Promise((resolve, reject) =>
    generateKeyPair('rsa', { modulusLength: 2048 }, (err, publicKey, privateKey) =>
      err ? reject(err) : resolve({ publicKey, privateKey }),
    ),
  );
  return processKeyPair;
}

export function createAirtel(sim: SimContext, router: Router, keys: RsaKeyPair): AirtelState {
  const { publicKey, privateKey } = keys;
  const publicKeyPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  const publicKeyDerB64 = publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  const keyId = Number(digits(4));
  const tokens = new TokenStore<{ clientId: string }>(() => sim.scheduler.now());
  const transactions = new Map<string, AirtelTransaction>();
  /** Refunds made with their own partner id, by that id. */
  const refunds = new Map<string, AirtelTransaction>();

  const appOf = (clientId: string): ResolvedAirtelApp | undefined =>
    sim.opts.airtel.apps.find((a) => a.clientId === clientId);

  function authenticate(ctx: RequestContext): ResolvedAirtelApp {
    const token = ctx.bearerToken();
    if (ctx.faults.tokenExpireEarlyMs !== undefined) tokens.expire(token);
    const found = tokens.lookup(token);
    if (!found.ok) {
      throw new SimHttpError(401, {
        error: 'invalid_token',
        error_description: found.reason === 'expired' ? 'Access token expired' : 'Invalid access token',
      });
    }
    const app = appOf(found.data.clientId);
    if (!app)
      throw new SimHttpError(401, { error: 'invalid_token', error_description: 'Unknown application' });
    for (const h of ['x-country', 'x-currency']) {
      if (!ctx.header(h)) throw airtelError(400, `Header ${h.toUpperCase()} is required`);
    }
    return app;
  }

  function checkSignature(ctx: RequestContext, app: ResolvedAirtelApp, key: KeyObject): void {
    if (!app.messageSigning) return;
    try {
      verifyAirtelSignature(ctx.rawBody, ctx.header('x-signature'), ctx.header('x-key'), key);
    } catch (e) {
      if (e instanceof AirtelSignatureError)
        throw airtelError(403, `Forbidden: ${e.message}`, 'DP00800001026');
      throw e;
    }
  }

  const parseError = () => airtelError(400, 'Invalid request payload: not JSON');

  function token(ctx: RequestContext): Reply {
    // Token requests come as JSON per Airtel's docs; form encoding is accepted too since some SDKs send it.
    const type = ctx.header('content-type') ?? '';
    const raw = type.includes('application/x-www-form-urlencoded')
      ? Object.fromEntries(new URLSearchParams(ctx.bodyText))
      : ctx.json(parseError);
    const parsed = TokenBody.safeParse(raw);
    if (!parsed.success)
      throw new SimHttpError(400, {
        error: 'invalid_request',
        error_description: 'client_id, client_secret and grant_type are required',
      });
    if (parsed.data.grant_type !== 'client_credentials') {
      throw new SimHttpError(400, {
        error: 'unsupported_grant_type',
        error_description: 'grant_type must be client_credentials',
      });
    }
    const app = appOf(parsed.data.client_id);
    if (!app || app.clientSecret !== parsed.data.client_secret) {
      throw new SimHttpError(401, {
        error: 'invalid_client',
        error_description: 'Invalid client credentials',
      });
    }
    const ttl = sim.opts.airtel.tokenTtlSeconds;
    const accessToken = jwtLikeToken({ sub: app.clientId, iat: Math.floor(Date.now() / 1000) });
    const holders = [
      Object.keys(ctx.faults).length ? new FaultHolder(ctx.faults) : undefined,
      ...sim.faults.holdersFor('airtel'),
    ];
    tokens.issue(accessToken, { clientId: app.clientId }, ttl * 1000, holders);
    // `expires_in` is a string on the real service.
    return json(200, { access_token: accessToken, expires_in: String(ttl), token_type: 'bearer' });
  }

  function encryptionKeys(ctx: RequestContext): Reply {
    authenticate(ctx);
    const holders = [
      Object.keys(ctx.faults).length ? new FaultHolder(ctx.faults) : undefined,
      ...sim.faults.holdersFor('airtel'),
    ];
    // The Airtel Money Open API documentation gives the code, not the HTTP status: a key service that cannot answer is a server-side
    // failure, so 500 with the error envelope.
    if (refusedBy(holders, 'keysUnavailable'))
      throw airtelError(500, 'Encryption key could not be fetched', 'DP02010001000');
    const validUpto = new Date(Date.now() + 365 * 86400_000).toISOString().replace('T', ' ').slice(0, 19);
    return json(200, {
      data: { key_id: keyId, key: publicKeyDerB64, valid_upto: validUpto },
      status: envelope(200, 'SUCCESS', 'DP02010001001', true),
    });
  }

  function payment(ctx: RequestContext): Reply {
    const app = authenticate(ctx);
    checkSignature(ctx, app, privateKey);
    const parsed = PaymentBody.safeParse(ctx.json(parseError));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw airtelError(400, `Invalid request payload: ${issue?.path.join('.')}: ${issue?.message}`);
    }
    const p = parsed.data;
    if (transactions.has(p.transaction.id)) {
      throw airtelError(400, 'Refused: duplicate transaction id', 'DP00800001008');
    }
    const recipeHeader = ctx.header('x-sim-hash-recipe');
    if (recipeHeader !== undefined && !isAirtelHashRecipe(recipeHeader)) {
      throw airtelError(400, `Unknown X-Sim-Hash-Recipe "${recipeHeader}"`);
    }
    const now = Date.now();
    const txn: AirtelTransaction = {
      kind: 'payment',
      id: p.transaction.id,
      clientId: app.clientId,
      msisdn: p.subscriber.msisdn,
      amount: p.transaction.amount,
      currency: p.transaction.currency ?? p.subscriber.currency ?? ctx.header('x-currency') ?? '',
      country: p.transaction.country ?? p.subscriber.country,
      reference: p.reference,
      airtelMoneyId: airtelMoneyId(),
      outcome: airtelOutcome(p.subscriber.msisdn, p.transaction.amount),
      ...AIRTEL_IN_PROGRESS,
      callbackUrl: ctx.header('x-sim-callback-url'),
      hashRecipe: recipeHeader,
      faults: new FaultHolder(ctx.faults),
      refunded: false,
      createdAt: now,
      updatedAt: now,
    };
    transactions.set(txn.id, txn);
    sim.later(sim.opts.approvalDelayMs, () => payerAnswers(txn));
    // `data.transaction.id` is typed boolean on the real service (Airtel Money Open API docs): it is not the partner id.
    return json(200, {
      data: { transaction: { id: false, status: 'SUCCESS' } },
      status: envelope(200, 'SUCCESS', 'DP00800001006', true),
    });
  }

  async function payerAnswers(txn: AirtelTransaction): Promise<void> {
    const o = txn.outcome;
    setStatus(txn, o.status, o.responseCode, o.status === 'TS' ? paidMessage(txn) : o.message);
    if (o.callback) await sendCallback(txn, o.callback);
    if (o.settlesTo) {
      sim.later(sim.scheduler.scaled(sim.opts.airtel.ambiguousResolveMs), async () => {
        setStatus(txn, 'TS', 'DP00800001001', paidMessage(txn));
        await sendCallback(txn, 'TS');
      });
    }
  }

  function paidMessage(txn: AirtelTransaction): string {
    return `Paid ${txn.currency} ${txn.amount} to SIM MERCHANT, Trans ID ${txn.airtelMoneyId}`;
  }

  function setStatus(
    txn: AirtelTransaction,
    status: AirtelStatus,
    responseCode: string,
    message: string,
  ): void {
    const paidNow = status === 'TS' && txn.status !== 'TS';
    txn.status = status;
    txn.responseCode = responseCode;
    txn.message = message;
    txn.updatedAt = Date.now();
    if (paidNow) book(txn);
  }

  /** Airtel wallets start with this balance in the books (the balance API's answer before any payment). */
  const OPENING_BALANCE = 0;

  /** The books (simulator/core/books.ts): a payment in, or a refund of one going back out. */
  function book(txn: AirtelTransaction): void {
    const refund = txn.kind === 'refund';
    sim.books.record(
      {
        provider: 'airtel',
        account: txn.clientId,
        id: txn.airtelMoneyId,
        externalId: txn.id,
        time: txn.updatedAt,
        kind: refund ? 'reversal' : 'payment',
        amountIn: refund ? 0 : txn.amount,
        amountOut: refund ? txn.amount : 0,
        counterparty: txn.msisdn,
        description: refund ? 'Refund' : 'Merchant Payment',
        currency: txn.currency,
        ...(refund && txn.refundOf
          ? { linkedId: transactions.get(txn.refundOf)?.airtelMoneyId ?? txn.refundOf }
          : {}),
      },
      OPENING_BALANCE,
    );
  }

  /** `GET /standard/v1/users/balance` (Airtel Money Open API docs): the app's wallet, as in the books. */
  function balance(ctx: RequestContext): Reply {
    const app = authenticate(ctx);
    const value = sim.books.balanceOf('airtel', app.clientId, undefined, OPENING_BALANCE);
    return json(200, {
      data: {
        // Airtel writes thousands with commas in some answers: the client must read "1,000.00".
        balance: value.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 }),
        currency: ctx.header('x-currency'),
        account_status: 'ACTIVE',
      },
      status: envelope(200, 'SUCCESS', 'DP00800001001', true),
    });
  }

  async function sendCallback(txn: AirtelTransaction, statusCode: 'TS' | 'TF'): Promise<void> {
    const app = appOf(txn.clientId);
    const url = txn.callbackUrl ?? app?.callbackUrl;
    if (!app || !url) {
      sim.logger.line(
        `callback airtel ${txn.id} ${statusCode} not sent: no callback URL configured for the app`,
      );
      return;
    }
    const faults = effectiveCallbackFaults(sim.faults, 'airtel', txn.faults);
    const build = (t: AirtelCallbackTransaction) =>
      buildAirtelCallback(t, {
        key: app.callbackAuth ? app.callbackKey : undefined,
        recipe: txn.hashRecipe ?? app.hashRecipe,
        corrupt: faults.corruptHash === true,
      });
    const final = build({
      id: txn.id,
      message: txn.message,
      status_code: statusCode,
      airtel_money_id: txn.airtelMoneyId,
    });
    const stale = build({
      id: txn.id,
      message: AIRTEL_IN_PROGRESS.message,
      status_code: AIRTEL_IN_PROGRESS.status,
      airtel_money_id: txn.airtelMoneyId,
    });
    const base = {
      provider: 'airtel' as const,
      kind: txn.kind,
      reference: txn.id,
      url,
      method: 'POST' as const,
      sourceIp: sim.opts.airtel.callbackSourceIp,
    };
    await sim.sender.deliver(
      { ...base, body: final.body, headers: final.headers, summary: `${txn.id} ${statusCode}` },
      faults,
      { ...base, body: stale.body, headers: stale.headers, summary: `${txn.id} TIP (stale)` },
    );
  }

  function refund(ctx: RequestContext): Reply {
    const app = authenticate(ctx);
    checkSignature(ctx, app, privateKey);
    const parsed = RefundBody.safeParse(ctx.json(parseError));
    const moneyId = parsed.success
      ? (parsed.data.transaction.airtel_money_id ?? parsed.data.transaction.wallet_money_id)
      : undefined;
    if (!moneyId) throw airtelError(400, 'Invalid request payload: transaction.airtel_money_id is required');
    const txn = [...transactions.values()].find(
      (t) => t.airtelMoneyId === moneyId && t.clientId === app.clientId,
    );
    if (!txn) throw airtelError(404, 'Transaction not found', 'DP00800001025');
    const refundId = parsed.success ? parsed.data.transaction.id : undefined;
    if (txn.status !== 'TS' || txn.refunded || (refundId !== undefined && refunds.has(refundId)))
      throw airtelError(400, 'Refused: transaction cannot be refunded', 'DP00800001008');
    txn.refunded = true;
    txn.updatedAt = Date.now();
    if (refundId !== undefined) {
      const now = Date.now();
      const moneyId = airtelMoneyId();
      const refundTxn: AirtelTransaction = {
        ...txn,
        kind: 'refund',
        refundOf: txn.id,
        id: refundId,
        airtelMoneyId: moneyId,
        status: 'TS',
        responseCode: 'DP00800001001',
        message: `Refunded ${txn.currency} ${txn.amount} of Trans ID ${txn.airtelMoneyId}, Refund ID ${moneyId}`,
        faults: new FaultHolder(ctx.faults),
        refunded: false,
        createdAt: now,
        updatedAt: now,
      };
      refunds.set(refundId, refundTxn);
      book(refundTxn);
      // The refund's status callback, to the same application callback URL as payments.
      sim.later(sim.opts.approvalDelayMs, () => sendCallback(refundTxn, 'TS'));
    }
    return json(200, {
      data: { transaction: { airtel_money_id: txn.airtelMoneyId, status: 'SUCCESS' } },
      status: envelope(200, 'SUCCESS', 'DP00800001001', true),
    });
  }

  /** Airtel's refund status enquiry: a refund made with its own `transaction.id`. */
  async function refundEnquiry(ctx: RequestContext): Promise<Reply> {
    const app = authenticate(ctx);
    const txn = refunds.get(ctx.params.id ?? '');
    const fault = await applyStatusFaults(sim, 'airtel', ctx, txn?.faults);
    if (fault) return json(fault, { status: envelope(fault, 'Internal Server Error', undefined, false) });
    if (!txn || txn.clientId !== app.clientId)
      throw airtelError(404, 'Transaction not found', 'DP00800001025');
    return enquiryAnswer(txn);
  }

  async function enquiry(ctx: RequestContext): Promise<Reply> {
    const app = authenticate(ctx);
    const txn = transactions.get(ctx.params.id ?? '');
    const fault = await applyStatusFaults(sim, 'airtel', ctx, txn?.faults);
    if (fault) return json(fault, { status: envelope(fault, 'Internal Server Error', undefined, false) });
    if (!txn || txn.clientId !== app.clientId)
      throw airtelError(404, 'Transaction not found', 'DP00800001025');
    return enquiryAnswer(txn);
  }

  function enquiryAnswer(txn: AirtelTransaction): Reply {
    return json(200, {
      data: {
        transaction: {
          // Set on success only (Airtel Money Open API docs).
          airtel_money_id: txn.status === 'TS' ? txn.airtelMoneyId : undefined,
          id: txn.id,
          message: txn.message,
          status: txn.status,
        },
      },
      status: envelope(200, 'SUCCESS', txn.responseCode, true),
    });
  }

  router.add('airtel', 'POST', '/auth/oauth2/token', token);
  router.add('airtel', 'GET', '/v1/rsa/encryption-keys', encryptionKeys);
  router.add('airtel', 'POST', '/merchant/v2/payments', payment);
  router.add('airtel', 'POST', '/standard/v2/payments/refund', refund);
  router.add('airtel', 'GET', '/standard/v1/users/balance', balance);
  router.add('airtel', 'GET', '/standard/v1/payments/refund/:id', refundEnquiry, { statusCall: true });
  router.add('airtel', 'GET', '/standard/v1/payments/:id', enquiry, { statusCall: true });

  return {
    publicKeyPem,
    transactions: () =>
      [...transactions.values(), ...refunds.values()].map((t) => ({
        provider: 'airtel',
        kind: t.kind,
        reference: t.id,
        clientId: t.clientId,
        status: t.status,
        responseCode: t.responseCode,
        message: t.message,
        msisdn: maskMsisdn(t.msisdn),
        amount: t.amount,
        currency: t.currency,
        airtelMoneyId: t.airtelMoneyId,
        refunded: t.refunded,
        createdAt: new Date(t.createdAt).toISOString(),
        updatedAt: new Date(t.updatedAt).toISOString(),
      })),
    reset: () => {
      transactions.clear();
      refunds.clear();
    },
  };
}
