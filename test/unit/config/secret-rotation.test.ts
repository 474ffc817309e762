import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { MemoryStore } from '../../../shared/adapters/memory/memory-store';
import type { RelayLogger, RelayMetrics } from '../../../shared/app/ports';
import { type RelayServices, scrubbingLogger } from '../../../shared/app/services';
import { loadRefreshingConfig } from '../../../shared/config/load';
import { secretScrubber } from '../../../shared/config/secrets';
import { receiveCallback } from '../../../shared/http/callback-endpoint';
import type { InboundRequest } from '../../../shared/http/types';
import { verifyAirtelHash } from '../../../shared/providers/airtel/hash';
import { fixture as airtelFixture, hmacHex, settings } from '../providers/airtel/support';

const SECRET_ID = 'relay/momo/demo/callback';
const OLD = 'momo-path-secret-old-0123456789';
const NEW = 'momo-path-secret-new-9876543210';
const REFERENCE = '6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f';
const REFRESH_MS = 60_000;

const fixture = readFileSync(
  new URL('../../fixtures/momo/requesttopay-successful.json', import.meta.url),
  'utf8',
);

const config = {
  management: { bearerToken: 'management-token-0123456789' },
  accounts: { momo: { demo: { currency: 'EUR', callbackSecretId: SECRET_ID } } },
};

/**
 * A running relay process (config loaded once, services wired once) whose Secrets Manager secret the
 * test rotates: the reader returns whatever the secret holds now, the clock is the test's.
 */
async function runningRelay() {
  const secret = { value: JSON.stringify({ pathSecret: OLD }) };
  const clock = { ms: 0 };
  const lines: Array<{ level: string; message: string; fields: Record<string, unknown>[] }> = [];
  const counted: Array<{ name: string; dimensions?: Record<string, string> }> = [];
  const at =
    (level: string) =>
    (message: string, ...fields: Record<string, unknown>[]) =>
      lines.push({ level, message, fields });
  const inner: RelayLogger = { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
  let scrubNow = (text: string) => text;
  const refreshing = await loadRefreshingConfig({ RELAY_CONFIG_JSON: JSON.stringify(config) }, undefined, {
    readSecret: async (id) => {
      if (id !== SECRET_ID) throw new Error(`no such secret ${id}`);
      return secret.value;
    },
    secretKinds: ['callback'],
    refreshMs: REFRESH_MS,
    now: () => clock.ms,
    onChange: (fresh) => {
      scrubNow = secretScrubber(fresh);
    },
  });
  scrubNow = secretScrubber(refreshing.config);
  const scrub = (text: string) => scrubNow(text);
  const metrics: RelayMetrics = {
    count: (name, _value, dimensions) => counted.push({ name, dimensions }),
    timing: () => {},
    flush: () => {},
  } as RelayMetrics;
  const services: RelayServices = {
    config: refreshing.config,
    store: new MemoryStore(),
    clock: { now: () => new Date('2026-11-21T10:00:01.000Z') },
    log: scrubbingLogger(inner, scrub),
    scrub,
    metrics,
  };
  /** One invocation: the refresh every Lambda invocation awaits first, then the callback. */
  const callback = async (pathSecret: string) => {
    await refreshing.refresh();
    const request: InboundRequest = {
      requestId: `req-${clock.ms}`,
      method: 'PUT',
      path: `/v1/momo/demo/${pathSecret}/requesttopay/${REFERENCE}`,
      headers: { 'content-type': 'application/json' },
      query: {},
      rawBody: Buffer.from(fixture, 'utf8'),
      sourceIp: '203.0.113.7',
      receivedAt: new Date('2026-11-21T10:00:00.000Z'),
    };
    return (await receiveCallback(services, request)).statusCode;
  };
  return { secret, clock, lines, counted, callback, scrub };
}

describe('path secret rotation in a running process', () => {
  it('accepts the new secret after the refresh interval, the old one while it is listed as previous, and refuses it once removed', async () => {
    const relay = await runningRelay();
    expect(await relay.callback(OLD)).toBe(200);
    expect(await relay.callback(NEW)).toBe(401);

    // Step 1 of the runbook: the secret gets the new value, the old one kept as previous.
    relay.secret.value = JSON.stringify({ pathSecret: NEW, previousPathSecret: OLD });
    // Within the refresh interval the process still uses what it read.
    relay.clock.ms = REFRESH_MS - 1;
    expect(await relay.callback(NEW)).toBe(401);
    relay.clock.ms = REFRESH_MS;
    expect(await relay.callback(NEW)).toBe(200);
    expect(await relay.callback(OLD)).toBe(200);
    const warnings = relay.lines.filter((l) => l.message.includes('previous path secret'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]!.level).toBe('warn');
    expect(relay.counted.filter((c) => c.name === 'PreviousPathSecretUsed')).toEqual([
      { name: 'PreviousPathSecretUsed', dimensions: { provider: 'momo', account: 'demo' } },
    ]);

    // Step 3: the previous value removed once providers use the new URL.
    relay.secret.value = JSON.stringify({ pathSecret: NEW });
    relay.clock.ms = 2 * REFRESH_MS;
    expect(await relay.callback(OLD)).toBe(401);
    expect(await relay.callback(NEW)).toBe(200);
  });

  it('scrubs both the old and the new value from logs after the rotation', async () => {
    const relay = await runningRelay();
    relay.secret.value = JSON.stringify({ pathSecret: NEW });
    relay.clock.ms = REFRESH_MS;
    await relay.callback(NEW);
    expect(relay.scrub(`${OLD} ${NEW}`)).toBe('[REDACTED] [REDACTED]');
  });

  it('keeps the values in use when the secret cannot be read, and reports it', async () => {
    const errors: string[] = [];
    const clock = { ms: 0 };
    let fail = false;
    const refreshing = await loadRefreshingConfig({ RELAY_CONFIG_JSON: JSON.stringify(config) }, undefined, {
      readSecret: async () => {
        if (fail) throw new Error('Secrets Manager unreachable');
        return JSON.stringify({ pathSecret: OLD });
      },
      refreshMs: REFRESH_MS,
      now: () => clock.ms,
      onError: (error) => errors.push(error.message),
    });
    fail = true;
    clock.ms = REFRESH_MS;
    await refreshing.refresh();
    expect(refreshing.config.accounts.get('momo/demo')!.pathSecret).toBe(OLD);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`accounts.momo.demo.callbackSecretId: cannot read secret "${SECRET_ID}"`);
    // Not retried before the next interval: a failing Secrets Manager is not asked on every invocation.
    await refreshing.refresh();
    expect(errors).toHaveLength(1);
  });

  it('reads once for concurrent invocations past the interval', async () => {
    const clock = { ms: 0 };
    let reads = 0;
    const refreshing = await loadRefreshingConfig({ RELAY_CONFIG_JSON: JSON.stringify(config) }, undefined, {
      readSecret: async () => {
        reads++;
        return JSON.stringify({ pathSecret: OLD });
      },
      refreshMs: REFRESH_MS,
      now: () => clock.ms,
    });
    clock.ms = REFRESH_MS;
    await Promise.all([refreshing.refresh(), refreshing.refresh(), refreshing.refresh()]);
    expect(reads).toBe(2);
  });
});

describe('Airtel callback key rotation', () => {
  const raw = JSON.stringify(airtelCallback());
  const signedWith = (key: string) =>
    verifyAirtelHash(
      {
        rawBody: Buffer.from(raw, 'utf8'),
        body: JSON.parse(raw),
        headers: { 'x-signature': hmacHex(key, raw) },
      },
      settings({ callbackKey: 'airtel-new-callback-key', previousCallbackKey: 'airtel-old-callback-key' }),
    );

  it('accepts callbacks signed with the previous key while it is listed, and only then', () => {
    expect(signedWith('airtel-new-callback-key').hash).toBe('matched');
    expect(signedWith('airtel-old-callback-key').hash).toBe('matched');
    expect(signedWith('somebody-elses-key').hash).toBe('mismatch');
    const withoutPrevious = verifyAirtelHash(
      {
        rawBody: Buffer.from(raw, 'utf8'),
        body: JSON.parse(raw),
        headers: { 'x-signature': hmacHex('airtel-old-callback-key', raw) },
      },
      settings({ callbackKey: 'airtel-new-callback-key' }),
    );
    expect(withoutPrevious.hash).toBe('mismatch');
  });
});

function airtelCallback() {
  return { transaction: airtelFixture('callback-ts').transaction };
}
