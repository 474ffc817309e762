/**
 * The CloudFront edge (edge.mode "cloudfront") over HTTP against the real local relay: requests that
 * went around CloudFront are refused and quarantined, the viewer IP comes from CloudFront-Viewer-Address
 * only on a verified request, X-Forwarded-For is never trusted, the management API is not behind it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  c2bBody,
  DARAJA_SECRET,
  eventType,
  findQuarantined,
  MARKER_HEADER,
  MOMO_SECRET,
  momoSuccessBody,
  newMarker,
  rejectionFor,
  SAFARICOM_IP,
  STRANGER_IP,
  startHostileRelay,
  uuid,
} from '../helpers/hostile';
import type { TestRelay } from '../helpers/relay';

const CURRENT = 'edgeCurrentSecretHOSTILE0123456789abcdefgh';
const PREVIOUS = 'edgePreviousSecretHOSTILE0123456789abcdef';

let relay: TestRelay;

beforeAll(async () => {
  relay = await startHostileRelay({ edge: { mode: 'cloudfront', originVerifySecrets: [CURRENT, PREVIOUS] } });
});

afterAll(async () => {
  await relay?.stop();
});

const confirmation = (headers: Record<string, string>) => {
  const marker = newMarker();
  const sent = relay.request(
    'POST',
    `/v1/daraja/guarded/${DARAJA_SECRET}/c2b/confirmation`,
    c2bBody(`HX${uuid().slice(0, 8)}`),
    { [MARKER_HEADER]: marker, ...headers },
  );
  return sent.then((res) => ({ res, marker }));
};

describe('CloudFront edge over HTTP', () => {
  it('acks a Daraja callback that came through CloudFront from a Safaricom viewer', async () => {
    // Act
    const { res } = await confirmation({
      'x-relay-origin-verify': CURRENT,
      'cloudfront-viewer-address': `${SAFARICOM_IP}:46532`,
    });

    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ ResultCode: 0 });
  });

  it('refuses a callback that went around CloudFront (403), quarantines it and raises CallbackRejected, even from a forged Safaricom X-Forwarded-For', async () => {
    // Act
    const { res, marker } = await confirmation({
      'x-forwarded-for': SAFARICOM_IP,
      'cloudfront-viewer-address': `${SAFARICOM_IP}:443`,
    });

    // Assess
    expect(res.status).toBe(403);
    const quarantined = await findQuarantined(relay, marker);
    expect(quarantined).toMatchObject({
      errorCode: 'ORIGIN_NOT_VERIFIED',
      httpStatus: 403,
      account: 'guarded',
    });
    const events = await relay.flush();
    expect(eventType(rejectionFor(events, quarantined!)!)).toBe('CallbackRejected');
  });

  it('applies the Daraja allow-list to the viewer IP, never to X-Forwarded-For', async () => {
    // Act
    const { res, marker } = await confirmation({
      'x-relay-origin-verify': CURRENT,
      'x-forwarded-for': SAFARICOM_IP,
      'cloudfront-viewer-address': `${STRANGER_IP}:443`,
    });

    // Assess
    expect(res.status).toBe(403);
    expect(await findQuarantined(relay, marker)).toMatchObject({
      errorCode: 'FORBIDDEN_SOURCE',
      sourceIp: STRANGER_IP,
    });
  });

  it('accepts the previous secret during a rotation, and keeps no secret in the quarantine', async () => {
    // Act
    const previous = await relay.request(
      'PUT',
      `/v1/momo/guarded/${MOMO_SECRET}/requesttopay/${uuid()}`,
      momoSuccessBody(),
      { 'x-relay-origin-verify': PREVIOUS, 'cloudfront-viewer-address': `${STRANGER_IP}:443` },
    );
    const wrong = await confirmation({ 'x-relay-origin-verify': `${CURRENT.slice(0, -1)}X` });

    // Assess
    expect(previous.status).toBe(200);
    expect(wrong.res.status).toBe(403);
    const quarantined = JSON.stringify(await findQuarantined(relay, wrong.marker));
    expect(quarantined).toContain('ORIGIN_NOT_VERIFIED');
    expect(quarantined).not.toContain(CURRENT.slice(0, -1));
  });

  it('leaves the management API out of the edge check (it is called on the execute-api URL)', async () => {
    // Act
    const res = await relay.admin('POST', '/v1/transactions', {
      provider: 'momo',
      account: 'guarded',
      kind: 'requesttopay',
      reference: uuid(),
      amount: '100',
      currency: 'EUR',
    });

    // Assess
    expect(res.status).toBe(201);
  });
});
