import { describe, expect, it } from 'vitest';
import { receiptDedupeKey, storableHeaders } from '../../../shared/app/callbacks/receipts';
import { ORIGIN_VERIFY_HEADER } from '../../../shared/config/schema';
import { sha256Hex } from '../../../shared/util/ids';

describe('storableHeaders', () => {
  it('never keeps a header that carries a credential, the CloudFront origin secret included', () => {
    const kept = storableHeaders({
      'content-type': 'application/json',
      authorization: 'Bearer token',
      cookie: 'a=b',
      'x-api-key': 'k',
      [ORIGIN_VERIFY_HEADER]: 'origin-secret-0123456789abcdef0123456789',
      'user-agent': 'momo',
    });

    expect(kept).toEqual({ 'content-type': 'application/json', 'user-agent': 'momo' });
  });

  it('cuts long values and keeps at most 50 headers', () => {
    const many = Object.fromEntries(Array.from({ length: 80 }, (_, i) => [`x-h${i}`, 'v'.repeat(2000)]));

    const kept = storableHeaders(many);

    expect(Object.keys(kept)).toHaveLength(50);
    expect(kept['x-h0']).toHaveLength(1025);
  });
});

describe('receiptDedupeKey', () => {
  it('is the same for the bytes and for their digest, and differs by route and reference', () => {
    const key = { provider: 'momo', account: 'demo', reference: 'r1' };
    const digest = sha256Hex(Buffer.from('{"status":"SUCCESSFUL"}'));

    expect(receiptDedupeKey(key, 'callback', digest)).toBe(receiptDedupeKey({ ...key }, 'callback', digest));
    expect(receiptDedupeKey(key, 'callback', digest)).not.toBe(receiptDedupeKey(key, 'other', digest));
    expect(receiptDedupeKey(key, 'callback', digest)).not.toBe(
      receiptDedupeKey({ ...key, reference: 'r2' }, 'callback', digest),
    );
  });
});
