/**
 * The admin API's view of options: `GET /_sim/info` credentials (remittance keys included) and the Daraja
 * limiter set at runtime with `PATCH /_sim/config`. Only `Date` is faked in the limiter tests, so every call
 * lands in the same millisecond and the one-second windows cannot be crossed by a slow machine.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { DEFAULTS } from '../../simulator/options';
import type { Simulator } from '../../simulator/server';
import { call, startSim } from './helpers';

const D = DEFAULTS.daraja;
const BASIC = `Basic ${Buffer.from(`${D.consumerKey}:${D.consumerSecret}`).toString('base64')}`;
const TOKEN_PATH = '/oauth/v1/generate?grant_type=client_credentials';

let sim: Simulator;

beforeEach(async () => {
  sim = await startSim();
});
afterEach(async () => {
  vi.useRealTimers();
  await sim.close();
});

const darajaToken = () => call(sim, 'GET', TOKEN_PATH, { headers: { Authorization: BASIC } });
const patchConfig = (body: unknown) => call(sim, 'PATCH', '/_sim/config', { body });
const freezeClock = () => vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });

describe('GET /_sim/info', () => {
  it('lists the remittance subscription keys next to collection and disbursement', async () => {
    // Act
    const r = await call(sim, 'GET', '/_sim/info');

    // Assess
    expect(r.status).toBe(200);
    expect(r.json.momo.remittanceSubscriptionKeys).toEqual(DEFAULTS.momo.remittanceSubscriptionKeys);
    expect(r.json.momo.collectionSubscriptionKeys).toEqual(DEFAULTS.momo.collectionSubscriptionKeys);
  });
});

describe('PATCH /_sim/config: the Daraja limiter', () => {
  it('shows the limiter in GET /_sim/config: both rules off (null) and status 429 by default', async () => {
    // Act
    const r = await call(sim, 'GET', '/_sim/config');

    // Assess
    expect(r.json.daraja).toMatchObject({
      quotaPerSecond: null,
      spikeArrestPerSecond: null,
      throttleHttpStatus: 429,
    });
  });

  it('quotaPerSecond set at runtime refuses the call beyond the quota with 500.003.03', async () => {
    // Prepare
    const patched = await patchConfig({ daraja: { quotaPerSecond: 1 } });
    freezeClock();

    // Act
    const first = await darajaToken();
    const second = await darajaToken();

    // Assess
    expect(patched.status).toBe(200);
    expect(patched.json.daraja.quotaPerSecond).toBe(1);
    expect(first.status).toBe(200);
    expect(second.status).toBe(429);
    expect(second.json.errorCode).toBe('500.003.03');
    expect(second.headers.get('retry-after')).toBe('1');
  });

  it('spikeArrestPerSecond set at runtime refuses the second call of the same instant with 500.003.02', async () => {
    // Prepare
    await patchConfig({ daraja: { spikeArrestPerSecond: 2 } });
    freezeClock();

    // Act
    const first = await darajaToken();
    const second = await darajaToken();

    // Assess
    expect(first.status).toBe(200);
    expect(second.status).toBe(429);
    expect(second.json.errorCode).toBe('500.003.02');
  });

  it('throttleHttpStatus set at runtime changes the HTTP status of a refusal', async () => {
    // Prepare
    await patchConfig({ daraja: { quotaPerSecond: 1, throttleHttpStatus: 500 } });
    freezeClock();

    // Act
    await darajaToken();
    const refused = await darajaToken();

    // Assess
    expect(refused.status).toBe(500);
    expect(refused.json.errorCode).toBe('500.003.03');
  });

  it('null turns a rule off again, and GET /_sim/config shows it off', async () => {
    // Prepare
    await patchConfig({ daraja: { quotaPerSecond: 1, spikeArrestPerSecond: 1 } });
    freezeClock();
    await darajaToken();

    // Act
    const patched = await patchConfig({ daraja: { quotaPerSecond: null, spikeArrestPerSecond: null } });
    const next = await darajaToken();

    // Assess
    expect(patched.json.daraja).toMatchObject({ quotaPerSecond: null, spikeArrestPerSecond: null });
    expect(next.status).toBe(200);
  });

  it('refuses values the limiter cannot use with 400 and leaves the config unchanged', async () => {
    // Act
    const zeroQuota = await patchConfig({ daraja: { quotaPerSecond: 0 } });
    const negativeSpike = await patchConfig({ daraja: { spikeArrestPerSecond: -1 } });
    const successStatus = await patchConfig({ daraja: { throttleHttpStatus: 200 } });
    const after = await call(sim, 'GET', '/_sim/config');

    // Assess
    expect(zeroQuota.status).toBe(400);
    expect(zeroQuota.json.message).toContain('daraja.quotaPerSecond');
    expect(negativeSpike.status).toBe(400);
    expect(successStatus.status).toBe(400);
    expect(after.json.daraja).toMatchObject({
      quotaPerSecond: null,
      spikeArrestPerSecond: null,
      throttleHttpStatus: 429,
    });
  });
});
