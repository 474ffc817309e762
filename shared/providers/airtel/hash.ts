import { createHmac, timingSafeEqual } from 'node:crypto';
import { AIRTEL_HASH_RECIPES, type AirtelHashMode, type AirtelHashRecipe } from './schema';

/**
 * Airtel callback authentication: `hash` = base64(HMAC-SHA256(key, bytes)). Which bytes is not
 * documented (provider notes), so each candidate recipe is computed and a match on any enabled one
 * is accepted. Recipe ids are shared with the simulator:
 * - stringify-without-hash: JSON.stringify(body without its `hash` member), key order as received.
 * - stringify-transaction:  JSON.stringify({ transaction: body.transaction }).
 * - raw-without-hash:       the received bytes with the top-level `"hash":"…"` member cut out textually.
 * - header-hex:             the whole received body; the HMAC (hex or base64) arrives in a header.
 */

/** Headers that may carry the HMAC, in the order they are tried. */
const AIRTEL_SIGNATURE_HEADERS = ['x-airtel-signature', 'x-hash', 'x-signature'] as const;

const DIGEST_BYTES = 32;
const BASE64_DIGEST = /^[A-Za-z0-9+/]{43}=$/;
const BASE64URL_DIGEST = /^[A-Za-z0-9_-]{43}=?$/;
const HEX_DIGEST = /^[0-9a-fA-F]{64}$/;

type HashOutcome = 'matched' | 'mismatch' | 'missing' | 'not-checked';

/** What is stored on the receipt (ctx.verification.hash…) — never the key, never the hash value. */
export interface HashVerification {
  hash: HashOutcome;
  mode: AirtelHashMode;
  /** The recipe that matched. */
  recipe?: AirtelHashRecipe;
  /** Where the matching (or offered) value came from: `body` or `header:<name>`. */
  source?: string;
  /** Recipes that were computed, in order (on mismatch). */
  tried?: AirtelHashRecipe[];
}

export interface HashInput {
  rawBody: Buffer;
  /** The parsed JSON object. */
  body: Record<string, unknown>;
  /** Lower-case header names. */
  headers: Record<string, string>;
}

function hmac(key: string, bytes: Buffer | string): Buffer {
  return createHmac('sha256', Buffer.from(key, 'utf8')).update(bytes).digest();
}

/** A 32-byte digest from its base64 text; anything else (wrong length, other alphabet, not a string) is undefined. */
export function decodeBase64Digest(value: unknown): Buffer | undefined {
  if (typeof value !== 'string') return undefined;
  const text = value.trim();
  let bytes: Buffer | undefined;
  if (BASE64_DIGEST.test(text)) bytes = Buffer.from(text, 'base64');
  else if (BASE64URL_DIGEST.test(text)) bytes = Buffer.from(text.replace(/=$/, ''), 'base64url');
  return bytes?.length === DIGEST_BYTES ? bytes : undefined;
}

/** Header form: hex (64 chars) or base64, optionally prefixed `sha256=`. */
export function decodeHeaderDigest(value: string): Buffer | undefined {
  const text = value.trim().replace(/^sha256=/i, '');
  if (HEX_DIGEST.test(text)) return Buffer.from(text, 'hex');
  return decodeBase64Digest(text);
}

/** Constant-time comparison of two digests; only equal-length (32-byte) buffers are ever compared. */
export function digestsEqual(expected: Buffer, given: Buffer | undefined): boolean {
  if (!given || given.length !== expected.length) return false;
  return timingSafeEqual(expected, given);
}

function skipWhitespace(text: string, i: number): number {
  while (i < text.length && /\s/.test(text[i]!)) i++;
  return i;
}

/** Index just past the JSON string starting at `i` (which must be a quote). */
function endOfString(text: string, i: number): number {
  let j = i + 1;
  while (j < text.length) {
    if (text[j] === '\\') j += 2;
    else if (text[j] === '"') return j + 1;
    else j++;
  }
  return text.length;
}

/** Index of the end of the JSON value starting at `i`: the next `,` or `}` at the same depth. */
function endOfValue(text: string, i: number): number {
  let depth = 0;
  let j = i;
  while (j < text.length) {
    const c = text[j]!;
    if (c === '"') {
      j = endOfString(text, j);
      continue;
    }
    if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      if (depth === 0) return j;
      depth--;
    } else if (c === ',' && depth === 0) return j;
    j++;
  }
  return j;
}

/**
 * The raw body text with its top-level `hash` member removed, as the sender had it before adding the
 * member: `,"hash":"…"` (the comma before it and whitespace between) when it follows another member,
 * `"hash":"…",` plus the whitespace up to the next member when it comes first. Whitespace before a
 * separating comma, and the value's escaping, are left as received. Undefined when the body is not a
 * JSON object text or has no (or more than one) top-level `hash` member.
 */
export function cutHashMember(text: string): string | undefined {
  let i = skipWhitespace(text, 0);
  if (text[i] !== '{') return undefined;
  i++;
  const found: { start: number; end: number }[] = [];
  let previousComma = -1;
  for (;;) {
    i = skipWhitespace(text, i);
    if (text[i] === '}') break;
    if (text[i] !== '"') return undefined;
    const keyStart = i;
    const keyEnd = endOfString(text, i);
    let key: unknown;
    try {
      key = JSON.parse(text.slice(keyStart, keyEnd));
    } catch {
      return undefined;
    }
    i = skipWhitespace(text, keyEnd);
    if (text[i] !== ':') return undefined;
    const afterValue = endOfValue(text, skipWhitespace(text, i + 1));
    let valueEnd = afterValue;
    while (valueEnd > keyEnd && /\s/.test(text[valueEnd - 1]!)) valueEnd--;
    if (key === 'hash') {
      if (previousComma >= 0) found.push({ start: previousComma, end: valueEnd });
      else if (text[afterValue] === ',')
        found.push({ start: keyStart, end: skipWhitespace(text, afterValue + 1) });
      else found.push({ start: keyStart, end: valueEnd });
    }
    if (text[afterValue] === ',') {
      previousComma = afterValue;
      i = afterValue + 1;
    } else if (text[afterValue] === '}') break;
    else return undefined;
  }
  if (found.length !== 1) return undefined;
  const [cut] = found;
  return text.slice(0, cut!.start) + text.slice(cut!.end);
}

interface Candidate {
  recipe: AirtelHashRecipe;
  source: string;
  given: Buffer | undefined;
  /** The bytes the recipe signs; computed lazily so disabled or inapplicable recipes cost nothing. */
  signed: () => Buffer | string | undefined;
}

function candidates(
  input: HashInput,
  enabled: ReadonlySet<AirtelHashRecipe>,
): { list: Candidate[]; offered: boolean } {
  const list: Candidate[] = [];
  const bodyHashPresent = Object.hasOwn(input.body, 'hash');
  const bodyDigest = bodyHashPresent ? decodeBase64Digest(input.body.hash) : undefined;
  const headers = AIRTEL_SIGNATURE_HEADERS.filter((name) => input.headers[name] !== undefined);
  let offered = false;
  for (const recipe of AIRTEL_HASH_RECIPES) {
    if (!enabled.has(recipe)) continue;
    if (recipe === 'header-hex') {
      for (const name of headers) {
        offered = true;
        list.push({
          recipe,
          source: `header:${name}`,
          given: decodeHeaderDigest(input.headers[name]!),
          signed: () => input.rawBody,
        });
      }
      continue;
    }
    if (!bodyHashPresent) continue;
    offered = true;
    const signed: Record<Exclude<AirtelHashRecipe, 'header-hex'>, () => string | undefined> = {
      'stringify-without-hash': () => {
        const { hash: _hash, ...rest } = input.body;
        return JSON.stringify(rest);
      },
      'stringify-transaction': () => JSON.stringify({ transaction: input.body.transaction }),
      'raw-without-hash': () => cutHashMember(input.rawBody.toString('utf8')),
    };
    list.push({ recipe, source: 'body', given: bodyDigest, signed: signed[recipe] });
  }
  // A value offered where no enabled recipe reads it still counts as offered (and so as a mismatch).
  if (!offered) offered = bodyHashPresent || headers.length > 0;
  return { list, offered };
}

/**
 * Checks the callback's hash under the account's mode and enabled recipes. Pure: the caller decides
 * what a mismatch means (enforce → 401, log-only → warn and accept).
 */
export function verifyAirtelHash(
  input: HashInput,
  settings: {
    callbackKey?: string | undefined;
    previousCallbackKey?: string | undefined;
    hashMode: AirtelHashMode;
    hashRecipes: readonly AirtelHashRecipe[];
  },
): HashVerification {
  const mode = settings.hashMode;
  if (mode === 'off') return { hash: 'not-checked', mode };
  // The previous key only while a rotation overlaps (it is absent otherwise).
  const keys = [settings.callbackKey, settings.previousCallbackKey].filter((k): k is string => !!k);
  const { list, offered } = candidates(input, new Set(settings.hashRecipes));
  if (!offered) return { hash: 'missing', mode };
  const tried: AirtelHashRecipe[] = [];
  for (const candidate of list) {
    if (!tried.includes(candidate.recipe)) tried.push(candidate.recipe);
    // A malformed or wrong-length value cannot match; skip the HMAC rather than compare garbage.
    if (!keys.length || !candidate.given) continue;
    const signed = candidate.signed();
    if (signed === undefined) continue;
    const given = candidate.given;
    if (keys.some((key) => digestsEqual(hmac(key, signed), given))) {
      return { hash: 'matched', mode, recipe: candidate.recipe, source: candidate.source };
    }
  }
  return { hash: 'mismatch', mode, tried };
}
