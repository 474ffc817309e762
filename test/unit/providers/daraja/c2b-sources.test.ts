import { describe, expect, it } from 'vitest';
import { askPartnerEndpoint, type FetchLike } from '../../../../shared/providers/daraja/c2b-sources';

const partner = { url: 'https://partner.example.com/decide', bearerToken: 'partner-token-0123456789' };

function fakeFetch(status: number, body: string, seen: { url?: string; init?: RequestInit } = {}): FetchLike {
  return async (url, init) => {
    seen.url = url;
    seen.init = init;
    return new Response(body, { status, headers: { 'content-type': 'application/json' } });
  };
}

describe('asking the partner decision endpoint', () => {
  it('POSTs the validation payload as JSON with the account and bearer token, and reads the decision', async () => {
    // Prepare
    const seen: { url?: string; init?: RequestInit } = {};
    const payload = { TransID: 'RKTQDM7W6S', BillRefNumber: 'ACC-001' };
    // Act
    const decision = await askPartnerEndpoint(
      partner,
      'demo',
      payload,
      new AbortController().signal,
      fakeFetch(200, '{"accept":false,"resultCode":"C2B00012"}', seen),
    );
    // Assess
    expect(decision).toMatchObject({ decision: 'reject', resultCode: 'C2B00012' });
    expect(seen.url).toBe(partner.url);
    expect(seen.init).toMatchObject({
      method: 'POST',
      headers: {
        authorization: 'Bearer partner-token-0123456789',
        'x-relay-account': 'demo',
        'content-type': 'application/json',
      },
    });
    expect(JSON.parse(String(seen.init?.body))).toEqual(payload);
  });

  it('fails on a non-2xx answer, so the default applies', async () => {
    await expect(
      askPartnerEndpoint(partner, 'demo', {}, new AbortController().signal, fakeFetch(503, 'down')),
    ).rejects.toThrow('HTTP 503');
  });

  it('fails on an answer that is not JSON or not a decision', async () => {
    const signal = new AbortController().signal;
    await expect(askPartnerEndpoint(partner, 'demo', {}, signal, fakeFetch(200, 'OK'))).rejects.toThrow(
      'not JSON',
    );
    await expect(
      askPartnerEndpoint(partner, 'demo', {}, signal, fakeFetch(200, '{"ok":true}')),
    ).rejects.toThrow('invalid');
  });
});
