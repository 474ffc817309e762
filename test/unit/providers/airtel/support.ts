/**
 * Test support for the Airtel unit tests: an independent signer (it does not reuse the relay's
 * verifier code, so a bug there cannot cancel out) and the CallbackInput the pipeline hands to the
 * provider's pure functions (`verify`, `routes[0].parse`).
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { airtelProvider } from '../../../../shared/providers/airtel';
import type { AirtelAccountSettings, AirtelHashRecipe } from '../../../../shared/providers/airtel/schema';
import type { CallbackInput, ParsedCallback, VerificationResult } from '../../../../shared/providers/types';

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

export const ENVELOPE = { code: '200', message: 'SUCCESS', result_code: 'ESB000010', success: true };

/** A callback for `transaction` signed with `key` the way `recipe` says the sender does it. */
export function signCallback(
  recipe: AirtelHashRecipe,
  transaction: Record<string, unknown>,
  key: string = KEY,
  unsigned: Record<string, unknown> = { status: ENVELOPE },
): SignedCallback {
  switch (recipe) {
    case 'stringify-without-hash': {
      const hash = hmacB64(key, JSON.stringify({ transaction }));
      return { raw: JSON.stringify({ transaction, hash }), headers: {}, signature: hash };
    }
    case 'stringify-transaction': {
      // Extra (unsigned) members, so that hashing {transaction} differs from hashing the whole body.
      const hash = hmacB64(key, JSON.stringify({ transaction }));
      return { raw: JSON.stringify({ transaction, ...unsigned, hash }), headers: {}, signature: hash };
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

/** The input receive-callback hands to the provider for one POST /v1/airtel/demo/callback. */
export function callbackInput(
  raw: string,
  headers: Record<string, string>,
  accountSettings: AirtelAccountSettings,
): CallbackInput<AirtelAccountSettings> {
  return {
    account: { provider: 'airtel', id: 'demo', pathSecret: undefined, settings: accountSettings },
    route: 'callback',
    params: {},
    body: JSON.parse(raw) as Record<string, unknown>,
    rawBody: Buffer.from(raw, 'utf8'),
    headers: { 'content-type': 'application/json', ...headers },
    sourceIp: '198.51.100.7',
  };
}

export const verify = (input: CallbackInput<AirtelAccountSettings>): VerificationResult =>
  airtelProvider.verify!(input);
export const parse = (input: CallbackInput<AirtelAccountSettings>): ParsedCallback =>
  airtelProvider.routes[0]!.parse(input);

/**
 * Verification then parsing, in the order receive-callback runs them: a refusal is thrown before the
 * body is read, and parsing sees only the signed part when the recipe signed only part of the body.
 */
export function verifyThenParse(input: CallbackInput<AirtelAccountSettings>): {
  verification: VerificationResult;
  parsed: ParsedCallback;
} {
  const verification = verify(input);
  if (verification.refusal) throw verification.refusal;
  const parsed = parse({ ...input, body: verification.trustedBody ?? input.body });
  return { verification, parsed };
}

/** The single report draft of a parsed Airtel callback. */
export function onlyDraft(parsed: ParsedCallback) {
  if (parsed.type !== 'reports' || parsed.reports.length !== 1)
    throw new Error('expected exactly one report');
  return parsed.reports[0]!.draft;
}
