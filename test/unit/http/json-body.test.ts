/**
 * The JSON body guard every route shares (shared/http/guards.ts): a UTF-8 byte-order mark before the JSON is
 * tolerated (RFC 8259 §8.1; .NET's default UTF-8 writer sends one), anything else that is not JSON is not.
 */
import { describe, expect, it } from 'vitest';
import { MalformedJsonError } from '../../../shared/domain/errors';
import { parseJsonObjectBody } from '../../../shared/http/guards';
import type { InboundRequest } from '../../../shared/http/types';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);
const MOMO_CALLBACK = '{"externalId":"ord-1","amount":"100","currency":"EUR","status":"SUCCESSFUL"}';

function request(rawBody: Buffer): InboundRequest {
  return {
    requestId: 'req-1',
    method: 'PUT',
    path: '/v1/momo/demo/requesttopay/x',
    headers: { 'content-type': 'application/json; charset=utf-8' },
    query: {},
    rawBody,
    sourceIp: '203.0.113.9',
    receivedAt: new Date('2026-12-01T00:00:00.000Z'),
  };
}

describe('The JSON body guard', () => {
  it('reads a body that starts with a UTF-8 byte-order mark as the JSON after it', () => {
    // Prepare
    const withMark = request(Buffer.concat([BOM, Buffer.from(MOMO_CALLBACK)]));

    // Act
    const body = parseJsonObjectBody(withMark, 10_000);

    // Assess: the same object as without the mark; the bytes the relay stores and hashes are untouched.
    expect(body).toEqual(JSON.parse(MOMO_CALLBACK));
    expect(withMark.rawBody.subarray(0, 3)).toEqual(BOM);
  });

  it.each([
    ['a mark alone', BOM],
    ['two marks', Buffer.concat([BOM, BOM, Buffer.from(MOMO_CALLBACK)])],
    ['a mark inside the JSON', Buffer.concat([Buffer.from('{"a":1'), BOM, Buffer.from('}')])],
    ['a UTF-16 mark', Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(MOMO_CALLBACK)])],
  ])('still refuses %s as malformed JSON', (_label, rawBody) => {
    expect(() => parseJsonObjectBody(request(rawBody), 10_000)).toThrow(MalformedJsonError);
  });
});
