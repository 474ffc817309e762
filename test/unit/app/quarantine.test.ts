import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import type { RelayLogger } from '../../../shared/app/ports';
import { recordRejection, type RejectionDeps } from '../../../shared/app/callbacks/quarantine';
import { RefusalSampler } from '../../../shared/app/callbacks/refusal-sampler';
import { RouteNotFoundError, SchemaValidationError, UnauthorizedError } from '../../../shared/domain/errors';
import type { InboundRequest } from '../../../shared/http/types';
import { sha256Hex } from '../../../shared/util/ids';
import { createScrubber, REDACTED } from '../../../shared/util/redact';

const SECRET = 'path-secret-0123456789';
const KEY_SECRET = 'airtel key/with+special=chars';

function collectingLogger(): RelayLogger & {
  lines: { level: string; message: string; fields: unknown[] }[];
} {
  const lines: { level: string; message: string; fields: unknown[] }[] = [];
  const at =
    (level: string) =>
    (message: string, ...fields: Record<string, unknown>[]) =>
      lines.push({ level, message, fields });
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

function setup() {
  const store = new MemoryStore();
  const log = collectingLogger();
  const deps: RejectionDeps = { store, log, scrub: createScrubber([SECRET, KEY_SECRET]) };
  return { store, log, deps };
}

function request(overrides: Partial<InboundRequest> = {}): InboundRequest {
  const body = overrides.rawBody ?? Buffer.from('{"status":"SUCCESSFUL"}');
  return {
    requestId: 'req-1',
    method: 'POST',
    path: `/v1/momo/demo/${SECRET}/requesttopay/abc`,
    headers: { 'content-type': 'application/json' },
    query: {},
    sourceIp: '198.51.100.7',
    receivedAt: new Date('2026-11-21T10:00:00.000Z'),
    ...overrides,
    rawBody: body,
  };
}

const context = {
  provider: 'momo',
  account: 'demo',
  routeName: 'callback',
  emitEvent: true,
  httpStatus: 400,
};

describe('recordRejection', () => {
  it('quarantines the request with what was refused and raises CallbackRejected', async () => {
    // Prepare
    const { store, deps } = setup();
    const req = request();

    // Act
    const id = await recordRejection(deps, req, new SchemaValidationError('Body refused'), context);

    // Assess
    expect(store.quarantined).toHaveLength(1);
    const entry = store.quarantined[0]!;
    expect(entry).toMatchObject({
      id,
      httpStatus: 400,
      errorCode: 'SCHEMA_VALIDATION_FAILED',
      message: 'Body refused',
      provider: 'momo',
      account: 'demo',
      routeName: 'callback',
      method: 'POST',
      body: '{"status":"SUCCESSFUL"}',
      bodyEncoding: 'utf8',
      bodyBytes: req.rawBody.length,
      bodySha256: sha256Hex(req.rawBody),
      bodyTruncated: false,
    });
    expect(store.published.map((e) => e.metadata.type)).toEqual(['CallbackRejected']);
    expect(store.published[0]!.data).toMatchObject({
      quarantineId: id,
      httpStatus: 400,
      errorCode: 'SCHEMA_VALIDATION_FAILED',
    });
  });

  it('raises no CallbackRejected for a request aimed at no configured account', async () => {
    // Prepare
    const { store, deps } = setup();

    // Act
    await recordRejection(deps, request({ path: '/wp-login.php' }), new SchemaValidationError('x'), {
      emitEvent: false,
      httpStatus: 404,
    });

    // Assess
    expect(store.quarantined).toHaveLength(1);
    expect(store.published).toEqual([]);
  });

  it('scrubs configured secrets from the path, the message, the headers and the body', async () => {
    // Prepare
    const { store, log, deps } = setup();
    const req = request({
      path: `/v1/momo/demo/${SECRET}/x?k=${encodeURIComponent(KEY_SECRET)}`,
      headers: {
        'content-type': 'application/json',
        'x-forwarded-uri': `/v1/momo/demo/${SECRET}/x`,
        [`x-${SECRET}`]: 'v',
      },
      rawBody: Buffer.from(JSON.stringify({ note: `secret is ${SECRET}`, key: KEY_SECRET })),
    });
    const error = new UnauthorizedError(`Wrong secret near ${SECRET} and ${KEY_SECRET}`);

    // Act
    await recordRejection(deps, req, error, { ...context, httpStatus: 401 });

    // Assess
    const everything = JSON.stringify({
      quarantined: store.quarantined,
      published: store.published,
      logs: log.lines,
    });
    expect(everything).not.toContain(SECRET);
    expect(everything).not.toContain(KEY_SECRET);
    expect(everything).not.toContain(encodeURIComponent(KEY_SECRET));
    const entry = store.quarantined[0]!;
    expect(entry.path).toBe(`/v1/momo/demo/${REDACTED}/x?k=${REDACTED}`);
    expect(entry.message).toBe(`Wrong secret near ${REDACTED} and ${REDACTED}`);
    expect(entry.headers['x-forwarded-uri']).toBe(`/v1/momo/demo/${REDACTED}/x`);
    expect(entry.body).toContain(`secret is ${REDACTED}`);
  });

  it('prefers the stored path (secret already replaced) when the route resolved', async () => {
    // Prepare
    const { store, deps } = setup();

    // Act
    await recordRejection(deps, request(), new SchemaValidationError('x'), {
      ...context,
      storedPath: '/v1/momo/demo/{secret}/requesttopay/abc',
    });

    // Assess
    expect(store.quarantined[0]!.path).toBe('/v1/momo/demo/{secret}/requesttopay/abc');
  });

  it('redacts credential members even in a body that does not parse', async () => {
    // Prepare
    const { store, deps } = setup();
    const text =
      '{"InitiatorName":"api","SecurityCredential":"c2VjcmV0LXZhbHVl","Password" : "hunter2", "PIN":1234, broken';

    // Act
    await recordRejection(
      deps,
      request({ rawBody: Buffer.from(text) }),
      new SchemaValidationError('x'),
      context,
    );

    // Assess
    const body = store.quarantined[0]!.body;
    expect(body).not.toContain('c2VjcmV0LXZhbHVl');
    expect(body).not.toContain('hunter2');
    expect(body).not.toContain('1234');
    expect(body).toContain(`"SecurityCredential":"${REDACTED}"`);
    expect(body).toContain(`"Password" : "${REDACTED}"`);
    expect(body).toContain('"InitiatorName":"api"');
  });

  it('redacts credentials in a refused form-encoded body, also where the value is percent-encoded', async () => {
    // Prepare
    const { store, deps } = setup();
    const text = 'InitiatorName=api&SecurityCredential=c2Vj%2FcmV0%2BdmFsdWU%3D&Amount=10';

    // Act
    await recordRejection(
      deps,
      request({ rawBody: Buffer.from(text), headers: {} }),
      new SchemaValidationError('x'),
      context,
    );

    // Assess
    const body = store.quarantined[0]!.body;
    expect(body).not.toContain('c2Vj');
    expect(body).toContain(`SecurityCredential=${REDACTED}`);
    expect(body).toContain('Amount=10');
  });

  it('masks long opaque tokens in a refused body that is not a JSON object, where credential names may be gone', async () => {
    // Prepare
    const { store, deps } = setup();
    const token = 'Q2xpZW50U2VjcmV0VmFsdWVUaGF0SXNMb25n';
    const text = JSON.stringify(['InitiatorName', 'api', token]);

    // Act
    await recordRejection(
      deps,
      request({ rawBody: Buffer.from(text) }),
      new SchemaValidationError('x'),
      context,
    );

    // Assess
    const body = store.quarantined[0]!.body;
    expect(body).not.toContain(token);
    expect(body).toContain('"api"');
  });

  it('drops credential headers and keeps a body that is not UTF-8 as base64', async () => {
    // Prepare
    const { store, deps } = setup();
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x41]);

    // Act
    await recordRejection(
      deps,
      request({ rawBody: bytes, headers: { authorization: 'Bearer abc', cookie: 'c=1', 'x-ok': 'yes' } }),
      new SchemaValidationError('x'),
      context,
    );

    // Assess
    const entry = store.quarantined[0]!;
    expect(entry.headers).toEqual({ 'x-ok': 'yes' });
    expect(entry).toMatchObject({ bodyEncoding: 'base64', body: bytes.toString('base64') });
  });

  it('clips a long path and a long message, and truncates a large body while describing the original', async () => {
    // Prepare
    const { store, deps } = setup();
    const path = `/v1/${'p'.repeat(5000)}`;
    const body = Buffer.from(JSON.stringify({ big: 'word '.repeat(20_000) }));

    // Act
    await recordRejection(
      deps,
      request({ path, rawBody: body }),
      new SchemaValidationError('m'.repeat(5000)),
      context,
    );

    // Assess
    const entry = store.quarantined[0]!;
    expect(entry.path).toHaveLength(1025);
    expect(entry.path.endsWith('…')).toBe(true);
    expect(entry.message).toHaveLength(1025);
    expect(entry.bodyTruncated).toBe(true);
    expect(entry.body.length).toBe(64 * 1024);
    expect(entry.bodyBytes).toBe(body.length);
    expect(entry.bodySha256).toBe(sha256Hex(body));
    expect((store.published[0]!.data as { path: string }).path).toHaveLength(1025);
  });

  it('never keeps any part of a configured secret that straddles the 64 KB body cut, wherever the cut falls (property)', async () => {
    const token = 'Zq9vBearerToken-abcdefghijklmnop';
    const limit = 64 * 1024;
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: token.length - 1 }), async (keptChars) => {
        // Prepare: the cut at 64 KB falls `keptChars` characters into the token.
        const store = new MemoryStore();
        const deps: RejectionDeps = { store, log: collectingLogger(), scrub: createScrubber([token]) };
        const prefix = `{"note":"${'.'.repeat(limit - 9 - keptChars)}`;
        const rawBody = Buffer.from(`${prefix}${token}${'.'.repeat(100)}"}`);
        // Act
        await recordRejection(deps, request({ rawBody }), new SchemaValidationError('bad'), context);
        // Assess
        const entry = store.quarantined[0]!;
        expect(entry.bodyTruncated).toBe(true);
        expect(Buffer.byteLength(entry.body)).toBeLessThanOrEqual(limit);
        expect(entry.body).not.toContain(token.slice(0, 2));
      }),
      { numRuns: 40 },
    );
  });

  it('never throws when the store fails: it logs the failed write and the rejection', async () => {
    // Prepare
    const { store, log, deps } = setup();
    store.failure = 'error';

    // Act
    const id = await recordRejection(deps, request(), new SchemaValidationError(`bad ${SECRET}`), context);

    // Assess
    expect(typeof id).toBe('string');
    expect(log.lines.map((l) => `${l.level}:${l.message}`)).toEqual([
      'error:quarantine write failed',
      'warn:request rejected',
    ]);
    expect(JSON.stringify(log.lines)).not.toContain(SECRET);
  });

  describe('under a flood', () => {
    it('stores a bounded number of scanner requests, counts the rest, and writes their summary', async () => {
      // Prepare
      let now = Date.parse('2026-11-23T10:00:00.000Z');
      const { store, deps } = setup();
      const counted: Array<[string, number | undefined, Record<string, string> | undefined]> = [];
      const flooded: RejectionDeps = {
        ...deps,
        refusalSampler: new RefusalSampler({}, () => now),
        metrics: { count: (n, v, d) => counted.push([n, v, d]), timing: () => {}, flush: () => {} },
      };
      const scan = request({ path: '/.env', rawBody: Buffer.alloc(50_000, 'x'), sourceIp: '203.0.113.9' });
      const scannerContext = { emitEvent: false, httpStatus: 404 };

      // Act
      for (let i = 0; i < 200; i++) {
        now += 100;
        await recordRejection(flooded, scan, new RouteNotFoundError('no such route'), scannerContext);
      }
      now += 60_000;
      await recordRejection(flooded, scan, new RouteNotFoundError('no such route'), scannerContext);

      // Assess
      const individual = store.quarantined.filter((q) => q.errorCode !== 'REFUSALS_NOT_STORED');
      const summaries = store.quarantined.filter((q) => q.errorCode === 'REFUSALS_NOT_STORED');
      expect(individual).toHaveLength(4);
      expect(
        individual.every((q) => q.body.length <= 2048 && q.bodyTruncated && q.bodyBytes === 50_000),
      ).toBe(true);
      expect(summaries).toHaveLength(1);
      expect(JSON.parse(summaries[0]!.body)).toMatchObject({
        notStored: 197,
        topSources: { '203.0.113.9': 197 },
      });
      expect(counted.filter(([name]) => name === 'RefusalsNotStored')).toHaveLength(197);
      expect(counted[0]?.[2]).toEqual({ route: 'unknown' });
    });

    it('stores every refusal when no sampler is wired (the local server)', async () => {
      const { store, deps } = setup();

      for (let i = 0; i < 50; i++)
        await recordRejection(deps, request({ path: '/.env' }), new RouteNotFoundError('no such route'), {
          emitEvent: false,
          httpStatus: 404,
        });

      expect(store.quarantined).toHaveLength(50);
    });
  });

  describe('whose allowance a refusal uses', () => {
    it('counts a wrong path secret for a real account against the unknown-route allowance, not the provider’s', async () => {
      // Prepare: a flood of wrong secrets on a real account name from many addresses.
      const now = Date.parse('2026-11-23T10:00:00.000Z');
      const { store, deps } = setup();
      const sampler = new RefusalSampler({ perSecond: 5 }, () => now);
      const guessing = { provider: 'momo', account: 'demo', emitEvent: true, httpStatus: 401 };
      for (let i = 0; i < 40; i++)
        await recordRejection(
          { ...deps, refusalSampler: sampler },
          request({ sourceIp: `203.0.113.${i}`, path: '/v1/momo/demo/wrong-secret/requesttopay/x' }),
          new UnauthorizedError('wrong path secret'),
          guessing,
        );
      const before = store.quarantined.length;

      // Act: the real provider's refused callback, its path secret verified (storedPath known).
      await recordRejection(
        { ...deps, refusalSampler: sampler },
        request(),
        new SchemaValidationError('bad body'),
        {
          ...context,
          storedPath: '/v1/momo/demo/{secret}/requesttopay/abc',
        },
      );

      // Assess
      expect(before).toBe(10);
      expect(store.quarantined).toHaveLength(11);
    });
  });
});
