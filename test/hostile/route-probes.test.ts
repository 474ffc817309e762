/**
 * The probe battery (test/hostile/probe-battery.ts, docs/security.md#the-probe-battery) against the real
 * local relay on DynamoDB Local: only the probes a real table may answer differently from the memory
 * store (test/unit/http/route-probes.test.ts runs them all) — keys and values DynamoDB refuses or
 * encodes its own way: long strings, NUL and lone surrogates in path parameters and body
 * fields, nested and reserved-name bodies. Never a 5xx, never a leak, always the house's error shape.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MANAGEMENT_ROUTE_TABLE } from '../../shared/config/management-routes';
import { startTestRelay, type TestRelay } from '../helpers/relay';
import {
  callbackProbes,
  closeProbes,
  managementProbes,
  PROBE_CONFIG,
  registerProbeTransaction,
  type Probe,
  runProbes,
} from './probe-battery';

let relay: TestRelay;

beforeAll(async () => {
  // No webhook destination: npm start's engine would send to it and write its log after the relay stops.
  relay = await startTestRelay({ ...PROBE_CONFIG, destinations: {} });
});

afterAll(async () => {
  closeProbes();
  await relay?.stop();
});

/** What a store may take differently: a key or a value's encoding and size, a body's shape. */
const STORE_SENSITIVE = /^(\{\w+\}|\w+) (nul|loneSurrogate|long)$|^body (deep|proto)$/;
const sensitive = (probe: Probe) => STORE_SENSITIVE.test(probe.what);

describe('the probe battery on DynamoDB Local', () => {
  it('answers the store-sensitive probes of every management route without a 5xx or a leak', async () => {
    // Arrange
    expect(await registerProbeTransaction(relay)).toBe(201);
    const probes = MANAGEMENT_ROUTE_TABLE.flatMap(managementProbes).filter(sensitive);

    // Act
    const violations = await runProbes({ url: relay.url, lines: [] }, probes);

    // Assess
    expect(violations).toEqual([]);
  });

  it('answers the store-sensitive probes of every provider route without a 5xx or a leak', async () => {
    // Act
    const violations = await runProbes({ url: relay.url, lines: [] }, callbackProbes().filter(sensitive));

    // Assess
    expect(violations).toEqual([]);
  });
});
