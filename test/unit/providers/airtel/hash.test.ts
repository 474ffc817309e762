import { describe, expect, it } from 'vitest';
import {
  cutHashMember,
  decodeBase64Digest,
  decodeHeaderDigest,
  digestsEqual,
  verifyAirtelHash,
} from '../../../../shared/providers/airtel/hash';
import { fixture, hmacB64, hmacHex, KEY, settings } from './support';

const paid = fixture('callback-ts').transaction;

function verify(raw: string, headers: Record<string, string> = {}, overrides = {}) {
  return verifyAirtelHash(
    { rawBody: Buffer.from(raw, 'utf8'), body: JSON.parse(raw), headers },
    settings(overrides),
  );
}

describe('decodeBase64Digest', () => {
  it('decodes a 44-character base64 SHA-256 digest to 32 bytes', () => {
    expect(decodeBase64Digest(hmacB64(KEY, 'x'))?.length).toBe(32);
  });

  it.each([
    ['too short', 'c2lnbmF0dXJl'],
    ['33 bytes', Buffer.alloc(33).toString('base64')],
    ['31 bytes', Buffer.alloc(31).toString('base64')],
    ['not base64', `${'*'.repeat(43)}=`],
    ['empty', ''],
    ['a number', 42],
    ['null', null],
    ['an object', { hash: 'x' }],
  ])('treats a value that is %s as no digest', (_name, value) => {
    expect(decodeBase64Digest(value)).toBeUndefined();
  });
});

describe('decodeHeaderDigest', () => {
  const digest = Buffer.from(hmacHex(KEY, 'x'), 'hex');

  it.each([
    ['lower-case hex', hmacHex(KEY, 'x')],
    ['upper-case hex', hmacHex(KEY, 'x').toUpperCase()],
    ['base64', hmacB64(KEY, 'x')],
    ['sha256= prefixed hex', `sha256=${hmacHex(KEY, 'x')}`],
  ])('reads %s', (_name, value) => {
    expect(decodeHeaderDigest(value)?.equals(digest)).toBe(true);
  });

  it('treats 63 hex characters as no digest', () => {
    expect(decodeHeaderDigest(hmacHex(KEY, 'x').slice(1))).toBeUndefined();
  });
});

describe('digestsEqual', () => {
  it('compares only digests of the same length and never throws on a different one', () => {
    const a = Buffer.alloc(32, 1);
    expect(digestsEqual(a, Buffer.alloc(32, 1))).toBe(true);
    expect(digestsEqual(a, Buffer.alloc(32, 2))).toBe(false);
    expect(digestsEqual(a, Buffer.alloc(16, 1))).toBe(false);
    expect(digestsEqual(a, undefined)).toBe(false);
  });
});

describe('cutHashMember', () => {
  it.each([
    ['last, compact', '{"transaction":{"id":"A"},"hash":"h=="}', '{"transaction":{"id":"A"}}'],
    ['first, compact', '{"hash":"h==","transaction":{"id":"A"}}', '{"transaction":{"id":"A"}}'],
    ['only member', '{"hash":"h=="}', '{}'],
    ['middle', '{"a":1,"hash":"h","b":2}', '{"a":1,"b":2}'],
    [
      'last, pretty',
      '{\n  "transaction": {\n    "id": "A"\n  },\n  "hash": "h"\n}',
      '{\n  "transaction": {\n    "id": "A"\n  }\n}',
    ],
    ['first, pretty', '{\n  "hash": "h",\n  "transaction": 1\n}', '{\n  "transaction": 1\n}'],
    ['spaces around the colon', '{"a":1, "hash" : "h"}', '{"a":1}'],
    ['appended after a newline', '{\n "a": 1\n,"hash":"h"}', '{\n "a": 1\n}'],
    ['escaped slashes in the value', '{"a":1,"hash":"ab\\/cd="}', '{"a":1}'],
  ])('removes the member when it is %s', (_name, text, want) => {
    expect(cutHashMember(text)).toBe(want);
  });

  it('leaves a nested hash member alone', () => {
    expect(cutHashMember('{"transaction":{"hash":"n"},"hash":"h"}')).toBe('{"transaction":{"hash":"n"}}');
  });

  it('is not fooled by "hash" inside a string value', () => {
    expect(cutHashMember('{"m":"\\"hash\\":\\"x\\"","hash":"h"}')).toBe('{"m":"\\"hash\\":\\"x\\""}');
  });

  it.each([
    ['no hash member', '{"a":1}'],
    ['two hash members', '{"hash":"a","hash":"b"}'],
    ['not an object', '["hash"]'],
  ])('gives nothing for %s', (_name, text) => {
    expect(cutHashMember(text)).toBeUndefined();
  });
});

describe('verifyAirtelHash recipes', () => {
  it('hashes the body as received, keeping its member order (stringify-without-hash)', () => {
    const body = {
      hash: '',
      transaction: { status_code: 'TS', airtel_money_id: 'M1', id: 'A1', message: 'ok' },
    };
    const { hash: _hash, ...unsigned } = body;
    const raw = JSON.stringify({ ...body, hash: hmacB64(KEY, JSON.stringify(unsigned)) });

    expect(verify(raw, {}, { hashRecipes: ['stringify-without-hash'] })).toMatchObject({
      hash: 'matched',
      recipe: 'stringify-without-hash',
    });
  });

  it('ignores other top-level members under stringify-transaction', () => {
    const raw = JSON.stringify({
      status: { code: '200' },
      transaction: paid,
      hash: hmacB64(KEY, JSON.stringify({ transaction: paid })),
    });

    expect(verify(raw, {}, { hashRecipes: ['stringify-transaction'] })).toMatchObject({
      hash: 'matched',
      recipe: 'stringify-transaction',
    });
  });

  it('verifies the exact bytes a sender with a different serializer hashed (raw-without-hash)', () => {
    const text =
      '{ "transaction" : {"id":"A1","status_code":"TS","message":"caf\\u00e9","airtel_money_id":"M1"} }';
    const hash = hmacB64(KEY, text).replaceAll('/', '\\/');
    const raw = `${text.slice(0, -2)}, "hash":"${hash}" }`;

    expect(verify(raw, {}, { hashRecipes: ['stringify-without-hash', 'stringify-transaction'] }).hash).toBe(
      'mismatch',
    );
    expect(verify(raw, {}, { hashRecipes: ['raw-without-hash'] })).toMatchObject({
      hash: 'matched',
      recipe: 'raw-without-hash',
    });
  });

  it.each(['x-airtel-signature', 'x-hash', 'x-signature'])(
    'reads a header-hex signature from %s',
    (header) => {
      const raw = JSON.stringify({ transaction: paid });

      expect(verify(raw, { [header]: hmacHex(KEY, raw) })).toMatchObject({
        hash: 'matched',
        recipe: 'header-hex',
        source: `header:${header}`,
      });
    },
  );

  it('accepts a base64 signature in the header too', () => {
    const raw = JSON.stringify({ transaction: paid });

    expect(verify(raw, { 'x-airtel-signature': hmacB64(KEY, raw) }).hash).toBe('matched');
  });

  it('uses the key as UTF-8 bytes', () => {
    const key = 'clé-ü-🔑';
    const raw = JSON.stringify({
      transaction: paid,
      hash: hmacB64(key, JSON.stringify({ transaction: paid })),
    });

    expect(verify(raw, {}, { callbackKey: key }).hash).toBe('matched');
    expect(verify(raw, {}, { callbackKey: Buffer.from(key, 'utf8').toString('latin1') }).hash).toBe(
      'mismatch',
    );
  });

  it('calls a hash offered only where no enabled recipe reads it a mismatch, not missing', () => {
    const raw = JSON.stringify({ transaction: paid });

    expect(
      verify(raw, { 'x-airtel-signature': hmacHex(KEY, raw) }, { hashRecipes: ['stringify-without-hash'] }),
    ).toMatchObject({
      hash: 'mismatch',
      tried: [],
    });
  });

  it('lists the recipes it tried on a mismatch', () => {
    const raw = JSON.stringify({ transaction: paid, hash: hmacB64('other', 'x') });

    expect(verify(raw)).toEqual({
      hash: 'mismatch',
      mode: 'enforce',
      tried: ['stringify-without-hash', 'stringify-transaction', 'raw-without-hash'],
    });
  });

  it('does not compute anything in off mode', () => {
    const raw = JSON.stringify({ transaction: paid, hash: 'anything' });

    expect(verify(raw, {}, { hashMode: 'off', callbackKey: undefined })).toEqual({
      hash: 'not-checked',
      mode: 'off',
    });
  });
});
