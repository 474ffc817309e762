import { randomUUID } from 'node:crypto';
import { DEFAULTS } from '../../simulator/options';
import type { Simulator } from '../../simulator/server';
import { call } from './helpers';

export type Product = 'collection' | 'disbursement' | 'remittance';

export const MOMO_USER = DEFAULTS.momo.apiUsers[0];
export const subKey = (p: Product) =>
  p === 'collection'
    ? DEFAULTS.momo.collectionSubscriptionKeys.primary
    : p === 'disbursement'
      ? DEFAULTS.momo.disbursementSubscriptionKeys.primary
      : DEFAULTS.momo.remittanceSubscriptionKeys.primary;
export const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;
export const base = Number(DEFAULTS.momo.sandboxMsisdnBase);
export const msisdn = (index: number) => String(base + index);

export async function momoToken(
  sim: Simulator,
  product: Product = 'collection',
  extra: Record<string, string> = {},
) {
  const r = await call(sim, 'POST', `/${product}/token/`, {
    headers: {
      'Ocp-Apim-Subscription-Key': subKey(product),
      Authorization: basic(MOMO_USER.id, MOMO_USER.apiKey),
      ...extra,
    },
  });
  if (r.status !== 200) throw new Error(`token failed: ${r.status} ${r.text}`);
  return r.json.access_token as string;
}

export function momoHeaders(
  token: string,
  product: Product = 'collection',
  extra: Record<string, string> = {},
) {
  return {
    Authorization: `Bearer ${token}`,
    'X-Target-Environment': 'sandbox',
    'Ocp-Apim-Subscription-Key': subKey(product),
    ...extra,
  };
}

export function rtpBody(payer: string, extra: Record<string, unknown> = {}) {
  return {
    amount: '100',
    currency: 'EUR',
    externalId: 'order-1',
    payer: { partyIdType: 'MSISDN', partyId: payer },
    payerMessage: 'Order 1',
    payeeNote: 'Thanks',
    ...extra,
  };
}

/** POST a request to pay (or another create) with a fresh reference; returns the reference and answer. */
export async function create(
  sim: Simulator,
  token: string,
  path: string,
  body: unknown,
  opts: { callbackUrl?: string; headers?: Record<string, string>; product?: Product; ref?: string } = {},
) {
  const ref = opts.ref ?? randomUUID();
  const headers: Record<string, string> = momoHeaders(token, opts.product ?? 'collection', {
    'X-Reference-Id': ref,
    ...opts.headers,
  });
  if (opts.callbackUrl) headers['X-Callback-Url'] = opts.callbackUrl;
  const res = await call(sim, 'POST', path, { headers, body });
  return { ref, res };
}

export function transferBody(payee: string, extra: Record<string, unknown> = {}) {
  return {
    amount: '50',
    currency: 'EUR',
    externalId: 'payout-1',
    payee: { partyIdType: 'MSISDN', partyId: payee },
    payerMessage: 'Payout',
    payeeNote: 'Payout 1',
    ...extra,
  };
}

/** A form-encoded POST (bc-authorize and the OAuth2 token endpoint take forms). */
export function formCall(
  sim: Simulator,
  path: string,
  headers: Record<string, string>,
  form: Record<string, string>,
) {
  return call(sim, 'POST', path, {
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    raw: new URLSearchParams(form).toString(),
  });
}
