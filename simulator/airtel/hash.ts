/**
 * Airtel callback authentication. Which bytes the real service hashes is undocumented (provider notes),
 * so the simulator can produce each candidate the relay verifies; recipe ids are shared with the relay.
 */
import { createHmac } from 'node:crypto';

export const AIRTEL_HASH_RECIPES = [
  'stringify-without-hash',
  'stringify-transaction',
  'raw-without-hash',
  'header-hex',
] as const;
export type AirtelHashRecipe = (typeof AIRTEL_HASH_RECIPES)[number];

export function isAirtelHashRecipe(v: unknown): v is AirtelHashRecipe {
  return typeof v === 'string' && (AIRTEL_HASH_RECIPES as readonly string[]).includes(v);
}

export interface AirtelCallbackTransaction {
  id: string;
  message: string;
  status_code: string;
  airtel_money_id: string;
}

export interface BuiltAirtelCallback {
  body: string;
  headers: Record<string, string>;
  /** The hash or signature as sent (after corruption, if asked). */
  signature?: string;
}

/** Envelope-like member added in the `stringify-transaction` recipe so hashing `{transaction}` differs from hashing the body. */
const STATUS_ENVELOPE = { code: '200', message: 'SUCCESS', result_code: 'ESB000010', success: true };

function hmac(key: string, text: string): Buffer {
  return createHmac('sha256', Buffer.from(key, 'utf8')).update(text, 'utf8').digest();
}

/** A wrong but well-formed value: same length and alphabet, first character changed. */
function corruptSignature(sig: string): string {
  const first = sig[0];
  const isHex = /^[0-9a-f]+$/.test(sig);
  const replacement = isHex ? (first === '0' ? '1' : '0') : first === 'A' ? 'B' : 'A';
  return replacement + sig.slice(1);
}

/**
 * Builds the callback text. `key` undefined means callback authentication is off: plain JSON, no hash.
 */
export function buildAirtelCallback(
  transaction: AirtelCallbackTransaction,
  options: { key: string | undefined; recipe: AirtelHashRecipe; corrupt?: boolean },
): BuiltAirtelCallback {
  const { key, recipe } = options;
  const maybeCorrupt = (s: string) => (options.corrupt ? corruptSignature(s) : s);
  if (key === undefined) return { body: JSON.stringify({ transaction }), headers: {} };

  switch (recipe) {
    case 'stringify-without-hash': {
      const body = { transaction };
      const hash = maybeCorrupt(hmac(key, JSON.stringify(body)).toString('base64'));
      return { body: JSON.stringify({ ...body, hash }), headers: {}, signature: hash };
    }
    case 'stringify-transaction': {
      const hash = maybeCorrupt(hmac(key, JSON.stringify({ transaction })).toString('base64'));
      return {
        body: JSON.stringify({ transaction, status: STATUS_ENVELOPE, hash }),
        headers: {},
        signature: hash,
      };
    }
    case 'raw-without-hash': {
      // Spacing that JSON.stringify(JSON.parse(text)) would not reproduce: only the raw bytes verify.
      const text = JSON.stringify({ transaction }, null, 1);
      const hash = maybeCorrupt(hmac(key, text).toString('base64'));
      const end = text.lastIndexOf('}');
      return { body: `${text.slice(0, end)},"hash":"${hash}"}`, headers: {}, signature: hash };
    }
    case 'header-hex': {
      const text = JSON.stringify({ transaction });
      const sig = maybeCorrupt(hmac(key, text).toString('hex'));
      return { body: text, headers: { 'X-Airtel-Signature': sig }, signature: sig };
    }
  }
}
