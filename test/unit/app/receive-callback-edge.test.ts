import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import { receiveCallback } from '../../../shared/http/callback-endpoint';
import { parseConfig } from '../../../shared/config/load';
import { ORIGIN_VERIFY_HEADER } from '../../../shared/config/schema';
import { secretScrubber } from '../../../shared/config/secrets';
import { viewerIpOf } from '../../../shared/http/guards';
import type { InboundRequest } from '../../../shared/http/types';
import { callbackWorld, type Line } from '../../helpers/callback-world';
import { registered } from '../../helpers/reports';

const CURRENT = 'edge-current-secret-0123456789abcdefghij';
const PREVIOUS = 'edge-previous-secret-0123456789abcdefghi';
const MOMO_SECRET = 'momo-path-secret-0123456789';
const DARAJA_SECRET = 'daraja-path-secret-0123456789';
const REFERENCE = '6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f';
const SAFARICOM_IP = '196.201.214.200';
const CLOUDFRONT_EDGE_IP = '130.176.12.34';

const accounts = {
  momo: { demo: { pathSecret: MOMO_SECRET, currency: 'EUR', confirmSuccess: false } },
  daraja: {
    ke: {
      pathSecret: DARAJA_SECRET,
      shortCode: '600638',
      sourceIp: { allow: [`${SAFARICOM_IP}/32`, '2001:db8::/32'] },
    },
  },
};
const management = { bearerToken: 'management-token-0123456789' };
const cloudfront = parseConfig({
  management,
  edge: { mode: 'cloudfront', originVerifySecrets: [CURRENT, PREVIOUS] },
  accounts,
});

const fixture = (path: string) => readFileSync(new URL(`../../fixtures/${path}`, import.meta.url), 'utf8');

const setup = (config = cloudfront) => callbackWorld({ config });

function request(path: string, body: string, headers: Record<string, string>): InboundRequest {
  return {
    requestId: 'req-1',
    method: path.includes('/momo/') ? 'PUT' : 'POST',
    path,
    headers: { 'content-type': 'application/json', ...headers },
    query: {},
    rawBody: Buffer.from(body, 'utf8'),
    // What API Gateway reports behind CloudFront: an edge address.
    sourceIp: CLOUDFRONT_EDGE_IP,
    receivedAt: new Date('2026-11-21T10:00:00.000Z'),
  };
}

const momo = (headers: Record<string, string>) =>
  request(
    `/v1/momo/demo/${MOMO_SECRET}/requesttopay/${REFERENCE}`,
    fixture('momo/requesttopay-successful.json'),
    headers,
  );
const darajaConfirmation = (headers: Record<string, string>) =>
  request(
    `/v1/daraja/ke/${DARAJA_SECRET}/c2b/confirmation`,
    fixture('daraja/c2b-confirmation.json'),
    headers,
  );

const everythingStored = (store: MemoryStore, lines: Line[]) =>
  JSON.stringify({
    quarantined: store.quarantined,
    receipts: [...store.receipts.values()],
    published: store.published,
    lines,
  });

describe('the CloudFront edge: origin verification', () => {
  it('refuses a provider callback without the origin header with 403, quarantined, and raises CallbackRejected', async () => {
    // Prepare
    const { store, services } = setup();
    await store.createTransaction(registered());

    // Act
    const response = await receiveCallback(
      services,
      momo({ 'cloudfront-viewer-address': '203.0.113.9:443' }),
    );

    // Assess
    expect(response.statusCode).toBe(403);
    expect(response.body).toMatchObject({ error: { code: 'ORIGIN_NOT_VERIFIED' } });
    expect(store.quarantined).toHaveLength(1);
    expect(store.quarantined[0]).toMatchObject({
      errorCode: 'ORIGIN_NOT_VERIFIED',
      httpStatus: 403,
      provider: 'momo',
      account: 'demo',
    });
    expect(store.published.map((e) => e.metadata.type)).toEqual(['CallbackRejected']);
    expect(store.receiptsOf({ provider: 'momo', account: 'demo', reference: REFERENCE })).toEqual([]);
  });

  it('refuses a wrong origin header even with a correct path secret, and never stores the header value', async () => {
    // Prepare
    const { store, lines, services } = setup();
    const forged = 'someone-guessing-the-origin-secret-000000';

    // Act
    const response = await receiveCallback(
      services,
      momo({ [ORIGIN_VERIFY_HEADER]: forged, 'cloudfront-viewer-address': '203.0.113.9:443' }),
    );

    // Assess
    expect(response.statusCode).toBe(403);
    expect(store.quarantined[0]!.message).toMatch(/Origin verification header wrong/);
    expect(store.quarantined[0]!.headers[ORIGIN_VERIFY_HEADER]).toBeUndefined();
    expect(everythingStored(store, lines)).not.toContain(forged);
  });

  it('refuses a bypass aimed at an unknown route with 403 too, without raising CallbackRejected', async () => {
    // Prepare
    const { store, services } = setup();

    // Act
    const response = await receiveCallback(services, request('/v1/nobody/x/y', '{}', {}));

    // Assess
    expect(response.statusCode).toBe(403);
    expect(store.quarantined[0]!.errorCode).toBe('ORIGIN_NOT_VERIFIED');
    expect(store.published).toEqual([]);
  });

  it('accepts the current and the previous secret (rotation), and keeps neither in receipts, quarantine or logs', async () => {
    // Prepare
    const { store, lines, services } = setup();
    await store.createTransaction(registered());

    // Act
    const current = await receiveCallback(
      services,
      momo({ [ORIGIN_VERIFY_HEADER]: CURRENT, 'cloudfront-viewer-address': '203.0.113.9:443' }),
    );
    const previous = await receiveCallback(
      services,
      momo({ [ORIGIN_VERIFY_HEADER]: PREVIOUS, 'cloudfront-viewer-address': '203.0.113.9:443' }),
    );
    const refused = await receiveCallback(
      services,
      // A refusal for another reason (unknown account) also never keeps the header.
      request(`/v1/momo/nobody/x/requesttopay/${REFERENCE}`, '{}', {
        [ORIGIN_VERIFY_HEADER]: CURRENT,
        'cloudfront-viewer-address': '203.0.113.9:443',
      }),
    );

    // Assess
    expect(current.statusCode).toBe(200);
    expect(previous.statusCode).toBe(200);
    expect(refused.statusCode).toBe(404);
    const [receipt] = store.receiptsOf({ provider: 'momo', account: 'demo', reference: REFERENCE });
    expect(receipt!.headers[ORIGIN_VERIFY_HEADER]).toBeUndefined();
    expect(receipt!.sourceIp).toBe('203.0.113.9');
    const stored = everythingStored(store, lines);
    expect(stored).not.toContain(CURRENT);
    expect(stored).not.toContain(PREVIOUS);
  });

  it("leaves a request untouched in direct mode (the default): no header needed, API Gateway's source IP", async () => {
    // Prepare
    const { store, services } = setup(parseConfig({ management, accounts }));
    await store.createTransaction(registered());

    // Act
    const response = await receiveCallback(
      services,
      momo({ 'cloudfront-viewer-address': '203.0.113.9:443' }),
    );

    // Assess
    expect(response.statusCode).toBe(200);
    const [receipt] = store.receiptsOf({ provider: 'momo', account: 'demo', reference: REFERENCE });
    expect(receipt!.sourceIp).toBe(CLOUDFRONT_EDGE_IP);
  });

  it('serves requests without the header like direct, and checks those with it, in cloudfront-or-direct mode', async () => {
    // Prepare
    const { store, services } = setup(
      parseConfig({
        management,
        accounts,
        edge: { mode: 'cloudfront-or-direct', originVerifySecrets: [CURRENT] },
      }),
    );

    // Act
    const direct = await receiveCallback(
      services,
      darajaConfirmation({ 'cloudfront-viewer-address': '203.0.113.9:443' }),
    );
    const throughCloudFront = await receiveCallback(
      services,
      darajaConfirmation({
        [ORIGIN_VERIFY_HEADER]: CURRENT,
        'cloudfront-viewer-address': `${SAFARICOM_IP}:443`,
      }),
    );
    const wrong = await receiveCallback(
      services,
      darajaConfirmation({
        [ORIGIN_VERIFY_HEADER]: PREVIOUS,
        'cloudfront-viewer-address': `${SAFARICOM_IP}:443`,
      }),
    );

    // Assess
    // Without the header: API Gateway's source IP (here an edge address, refused by the allow-list).
    expect(direct.statusCode).toBe(403);
    expect(throughCloudFront.statusCode).toBe(200);
    expect(wrong.statusCode).toBe(403);
    expect(store.quarantined.map((q) => [q.errorCode, q.sourceIp])).toEqual([
      ['FORBIDDEN_SOURCE', CLOUDFRONT_EDGE_IP],
      ['ORIGIN_NOT_VERIFIED', CLOUDFRONT_EDGE_IP],
    ]);
  });

  it('scrubs the origin secrets from any text, like every configured secret', () => {
    // Prepare
    const scrub = secretScrubber(cloudfront);

    // Act
    const text = scrub(`header was ${CURRENT} then ${PREVIOUS}`);

    // Assess
    expect(text).not.toContain(CURRENT);
    expect(text).not.toContain(PREVIOUS);
  });
});

describe('the CloudFront edge: the viewer IP', () => {
  it('applies the Daraja allow-list to the viewer IP from CloudFront-Viewer-Address (IPv4 with port)', async () => {
    // Prepare
    const { store, services } = setup();

    // Act
    const response = await receiveCallback(
      services,
      darajaConfirmation({
        [ORIGIN_VERIFY_HEADER]: CURRENT,
        'cloudfront-viewer-address': `${SAFARICOM_IP}:46532`,
      }),
    );

    // Assess
    expect(response.statusCode).toBe(200);
    expect(store.quarantined).toEqual([]);
  });

  it('reads an IPv6 viewer address whose last colon separates the port', async () => {
    // Prepare
    const { store, services } = setup();

    // Act
    const response = await receiveCallback(
      services,
      darajaConfirmation({
        [ORIGIN_VERIFY_HEADER]: CURRENT,
        'cloudfront-viewer-address': '2001:db8::1:46532',
      }),
    );

    // Assess
    expect(response.statusCode).toBe(200);
    expect(store.quarantined).toEqual([]);
    expect(viewerIpOf('2001:db8::1:46532')).toBe('2001:db8::1');
    expect(viewerIpOf('[2001:db8::1]:443')).toBe('2001:db8::1');
    expect(viewerIpOf('196.201.214.200:80')).toBe('196.201.214.200');
    for (const bad of ['196.201.214.200', '2001:db8::1', 'not-an-ip:80', ':80', '1.2.3.4:port', ''])
      expect(viewerIpOf(bad), bad).toBeUndefined();
  });

  it('refuses a viewer outside the Daraja allow-list, and records the viewer IP, not the edge address', async () => {
    // Prepare
    const { store, services } = setup();

    // Act
    const response = await receiveCallback(
      services,
      darajaConfirmation({ [ORIGIN_VERIFY_HEADER]: CURRENT, 'cloudfront-viewer-address': '203.0.113.9:443' }),
    );

    // Assess
    expect(response.statusCode).toBe(403);
    expect(store.quarantined[0]).toMatchObject({ errorCode: 'FORBIDDEN_SOURCE', sourceIp: '203.0.113.9' });
  });

  it('never trusts X-Forwarded-For: a forged Safaricom address there does not pass the allow-list', async () => {
    // Prepare
    const { store, services } = setup();

    // Act
    const response = await receiveCallback(
      services,
      darajaConfirmation({
        [ORIGIN_VERIFY_HEADER]: CURRENT,
        'x-forwarded-for': SAFARICOM_IP,
        'cloudfront-viewer-address': '203.0.113.9:443',
      }),
    );

    // Assess
    expect(response.statusCode).toBe(403);
    expect(store.quarantined[0]).toMatchObject({ errorCode: 'FORBIDDEN_SOURCE', sourceIp: '203.0.113.9' });
  });

  it('does not take CloudFront-Viewer-Address from a request that failed origin verification', async () => {
    // Prepare
    const { store, services } = setup();

    // Act
    const response = await receiveCallback(
      services,
      darajaConfirmation({ 'cloudfront-viewer-address': `${SAFARICOM_IP}:443` }),
    );

    // Assess
    expect(response.statusCode).toBe(403);
    expect(store.quarantined[0]).toMatchObject({
      errorCode: 'ORIGIN_NOT_VERIFIED',
      sourceIp: CLOUDFRONT_EDGE_IP,
    });
  });

  it('refuses a verified request without a usable CloudFront-Viewer-Address (never falls back to another header)', async () => {
    // Prepare
    const { store, services } = setup();

    // Act
    const response = await receiveCallback(
      services,
      darajaConfirmation({ [ORIGIN_VERIFY_HEADER]: CURRENT, 'x-forwarded-for': SAFARICOM_IP }),
    );

    // Assess
    expect(response.statusCode).toBe(403);
    expect(store.quarantined[0]!.message).toMatch(/CloudFront-Viewer-Address missing/);
  });
});

describe('edge config', () => {
  it('names the dotted key when cloudfront mode has no secret or a short one', () => {
    // Act
    const missing = () => parseConfig({ management, edge: { mode: 'cloudfront' } });
    const short = () =>
      parseConfig({ management, edge: { mode: 'cloudfront', originVerifySecrets: ['too-short'] } });

    // Assess
    expect(missing).toThrow(/edge\.originVerifySecrets: required unless mode is "direct"/);
    expect(short).toThrow(/edge\.originVerifySecrets\.0: at least 32 characters/);
  });

  it('defaults to direct with no secrets', () => {
    expect(parseConfig({ management }).edge).toEqual({ mode: 'direct', originVerifySecrets: [] });
  });
});
