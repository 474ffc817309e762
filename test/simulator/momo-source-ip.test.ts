/**
 * Which address MoMo's FORBIDDEN IP allow-lists judge: the connection's remote address, unless the
 * `X-Sim-Source-Ip` header overrides it. Linux routes all of 127.0.0.0/8 to loopback, so a client bound to
 * 127.0.0.2 plays a second caller without any network set-up.
 */
import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { normaliseRemoteAddress } from '../../simulator/core/http';
import type { Simulator, SimulatorOptions } from '../../simulator/server';
import { call, startSim } from './helpers';
import { basic, MOMO_USER, subKey } from './momo-helpers';

let sim: Simulator | undefined;

afterEach(async () => {
  await sim?.close();
  sim = undefined;
});

const tokenHeaders = (extra: Record<string, string> = {}) => ({
  'Ocp-Apim-Subscription-Key': subKey('disbursement'),
  Authorization: basic(MOMO_USER.id, MOMO_USER.apiKey),
  ...extra,
});

/** A disbursement token request sent from `localAddress`. */
function tokenFrom(
  s: Simulator,
  localAddress: string,
  extra: Record<string, string> = {},
): Promise<{ status: number; json: { code?: string; message?: string } }> {
  return new Promise((resolve, reject) => {
    const req = request(
      `${s.url}/disbursement/token/`,
      { method: 'POST', localAddress, headers: tokenHeaders(extra) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            json: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as {
              code?: string;
              message?: string;
            },
          }),
        );
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const start = (options: SimulatorOptions) => startSim(options).then((s) => (sim = s));

describe('normaliseRemoteAddress', () => {
  it('unwraps an IPv4-mapped IPv6 address to plain IPv4', () => {
    expect(normaliseRemoteAddress('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(normaliseRemoteAddress('::FFFF:10.1.2.3')).toBe('10.1.2.3');
  });

  it('leaves IPv4, plain IPv6 and a missing address as they are', () => {
    expect(normaliseRemoteAddress('198.51.100.7')).toBe('198.51.100.7');
    expect(normaliseRemoteAddress('::1')).toBe('::1');
    expect(normaliseRemoteAddress('::ffff:7f00:1')).toBe('::ffff:7f00:1');
    expect(normaliseRemoteAddress(undefined)).toBeUndefined();
  });
});

describe('MoMo FORBIDDEN IP: the caller address', () => {
  it('admits a caller whose socket address is on the list, without any header', async () => {
    // Prepare
    const s = await start({ momo: { disbursementAllowList: ['127.0.0.2'] } });

    // Act
    const r = await tokenFrom(s, '127.0.0.2');

    // Assess
    expect(r.status).toBe(200);
  });

  it('refuses a caller whose socket address is off the list and names that address', async () => {
    // Prepare
    const s = await start({ momo: { disbursementAllowList: ['127.0.0.2'] } });

    // Act
    const r = await tokenFrom(s, '127.0.0.3');

    // Assess
    expect(r.status).toBe(403);
    expect(r.json).toEqual({
      code: 'FORBIDDEN IP',
      message: 'Caller IP 127.0.0.3 is not authorized for this API.',
    });
  });

  it('lets X-Sim-Source-Ip override the socket address, in both directions', async () => {
    // Prepare
    const s = await start({ momo: { disbursementAllowList: ['127.0.0.2'] } });

    // Act
    const outsidePretendingInside = await tokenFrom(s, '127.0.0.3', { 'X-Sim-Source-Ip': '127.0.0.2' });
    const insidePretendingOutside = await tokenFrom(s, '127.0.0.2', { 'X-Sim-Source-Ip': '198.51.100.7' });

    // Assess
    expect(outsidePretendingInside.status).toBe(200);
    expect(insidePretendingOutside.status).toBe(403);
    expect(insidePretendingOutside.json.message).toContain('198.51.100.7');
  });

  it('matches an IPv4 list entry when a dual-stack listener reports the caller as ::ffff:127.0.0.1', async () => {
    // Prepare: listening on `::` makes Node report IPv4 callers in the mapped form.
    const s = await start({ host: '::', momo: { disbursementAllowList: ['127.0.0.1'] } });

    // Act
    const r = await call(s, 'POST', '/disbursement/token/', { headers: tokenHeaders() });

    // Assess
    expect(r.status).toBe(200);
  });
});
