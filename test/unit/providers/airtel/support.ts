/**
 * Test support for the Airtel unit tests: an independent signer (it does not reuse the relay's
 * verifier code, so a bug there cannot cancel out) and a route context with recording fakes.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { CallbackServices, ReportDraft } from '../../../../shared/domain/callback-services';
import type { AirtelAccountSettings, AirtelHashRecipe } from '../../../../shared/providers/airtel/schema';
import type { RouteContext } from '../../../../shared/providers/types';

export const KEY = 'test-airtel-callback-key';

export function fixture(name: 'callback-ts' | 'callback-tf'): { transaction: Record<string, unknown> } {
  return JSON.parse(readFileSync(new URL(`../../../fixtures/airtel/${name}.json`, import.meta.url), 'utf8'));
}

export const hmacB64 = (key: string, text: string) =>
  createHmac('sha256', key).update(text, 'utf8').digest('base64');
export const hmacHex = (key: string, text: string) =>
  createHmac('sha256', key).update(text, 'utf8').digest('hex');

export interface SignedCallback {
  raw: string;
  headers: Record<string, string>;
  /** The hash or signature value as sent. */
  signature: string | undefined;
}

const ENVELOPE = { code: '200', message: 'SUCCESS', result_code: 'ESB000010', success: true };

/** A callback for `transaction` signed with `key` the way `recipe` says the sender does it. */
export function signCallback(
  recipe: AirtelHashRecipe,
  transaction: Record<string, unknown>,
  key: string = KEY,
): SignedCallback {
  switch (recipe) {
    case 'stringify-without-hash': {
      const hash = hmacB64(key, JSON.stringify({ transaction }));
      return { raw: JSON.stringify({ transaction, hash }), headers: {}, signature: hash };
    }
    case 'stringify-transaction': {
      // An extra member, so that hashing {transaction} differs from hashing the whole body.
      const hash = hmacB64(key, JSON.stringify({ transaction }));
      return { raw: JSON.stringify({ transaction, status: ENVELOPE, hash }), headers: {}, signature: hash };
    }
    case 'raw-without-hash': {
      // Pretty-printed: JSON.stringify of the parsed body would not reproduce these bytes.
      const text = JSON.stringify({ transaction }, null, 2);
      const hash = hmacB64(key, text);
      return { raw: `${text.slice(0, -2)},\n  "hash": "${hash}"\n}`, headers: {}, signature: hash };
    }
    case 'header-hex': {
      const raw = JSON.stringify({ transaction });
      const signature = hmacHex(key, raw);
      return { raw, headers: { 'x-airtel-signature': signature }, signature };
    }
  }
}

/** The same callback as sent without any hash (no member, no header). */
export function unsignedCallback(
  recipe: AirtelHashRecipe,
  transaction: Record<string, unknown>,
): SignedCallback {
  const raw =
    recipe === 'stringify-transaction'
      ? JSON.stringify({ transaction, status: ENVELOPE })
      : recipe === 'raw-without-hash'
        ? JSON.stringify({ transaction }, null, 2)
        : JSON.stringify({ transaction });
  return { raw, headers: {}, signature: undefined };
}

export function settings(overrides: Partial<AirtelAccountSettings> = {}): AirtelAccountSettings {
  return {
    callbackKey: KEY,
    hashMode: 'enforce',
    hashRecipes: ['stringify-without-hash', 'stringify-transaction', 'raw-without-hash', 'header-hex'],
    ...overrides,
  };
}

export interface Recorded {
  ctx: RouteContext<AirtelAccountSettings>;
  ingested: { draft: ReportDraft; verification: Record<string, unknown> }[];
  logs: { level: string; message: string; fields: unknown[] }[];
}

/** A route context as receive-callback builds it, with services that record instead of storing. */
export function routeContext(
  raw: string,
  headers: Record<string, string>,
  accountSettings: AirtelAccountSettings,
): Recorded {
  const ingested: Recorded['ingested'] = [];
  const logs: Recorded['logs'] = [];
  const logAt =
    (level: string) =>
    (message: string, ...fields: unknown[]) =>
      logs.push({ level, message, fields });
  const services = {
    log: { debug: logAt('debug'), info: logAt('info'), warn: logAt('warn'), error: logAt('error') },
    async ingest(ctx: RouteContext<unknown>, draft: ReportDraft) {
      ingested.push({ draft, verification: structuredClone(ctx.verification) });
      return {
        receipt: { receiptId: 'rcpt-1', deliveries: 1 },
        duplicate: false,
        outcome: { kind: 'noop', why: 'stale' },
      };
    },
  } as unknown as CallbackServices;
  const ctx: RouteContext<AirtelAccountSettings> = {
    request: {
      requestId: 'req-1',
      method: 'POST',
      path: '/v1/airtel/demo/callback',
      headers: { 'content-type': 'application/json', ...headers },
      query: {},
      rawBody: Buffer.from(raw, 'utf8'),
      sourceIp: '198.51.100.7',
      receivedAt: new Date('2026-11-21T10:00:00.000Z'),
    },
    account: { provider: 'airtel', id: 'demo', pathSecret: undefined, settings: accountSettings },
    params: {},
    body: JSON.parse(raw),
    route: { name: 'callback' },
    storedPath: '/v1/airtel/demo/callback',
    verification: { pathSecret: 'not-configured' },
    services,
    config: {} as RouteContext<AirtelAccountSettings>['config'],
  };
  return { ctx, ingested, logs };
}
