import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { PowertoolsRelayMetrics } from '../../../shared/adapters/metrics/powertools-metrics';
import * as shim from '../../../infra/lambda-shims/emf-metrics';

/*
 * Every Lambda bundle replaces Powertools Metrics with infra/lambda-shims/emf-metrics.ts (esbuild alias,
 * infra/bundling.ts). Here the package's class and the shim are driven with the same calls, through the
 * relay's adapter and directly: what they write on stdout and stderr, and what they throw, must be the same.
 */

type Written = { stdout: string[]; stderr: string[]; error?: string };

/** What `run` writes (one entry per line) and throws, with the clock fixed so timestamps compare. */
function written(run: () => void): Written {
  const out: Written = { stdout: [], stderr: [] };
  const capture = (into: string[]) => (chunk: string | Uint8Array) => {
    into.push(...String(chunk).split('\n').filter(Boolean));
    return true;
  };
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation(capture(out.stdout));
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation(capture(out.stderr));
  try {
    run();
  } catch (error) {
    out.error = `${(error as Error).name}: ${(error as Error).message}`;
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
  return out;
}

type MetricsClass = new (options?: { namespace?: string; serviceName?: string }) => Metrics;

/** The same calls on the package's class and on the shim. */
function both(run: (Class: MetricsClass) => void) {
  return {
    real: written(() => run(Metrics)),
    slim: written(() => run(shim.Metrics as unknown as MetricsClass)),
  };
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-11-29T10:00:00Z'));
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
});

describe('emf-metrics shim (every Lambda bundle) against Powertools Metrics', () => {
  it('writes the same EMF documents through the relay’s adapter: roll-ups, dimensions, value splits', () => {
    // Act
    const { real, slim } = both((Class) => {
      const metrics = new PowertoolsRelayMetrics({ metrics: new Class({ namespace: 'Relay/Test' }) });
      metrics.count('CallbacksReceived', 1, { provider: 'momo', account: 'demo' });
      metrics.count('CallbacksReceived', 2, { provider: 'momo', account: 'demo' });
      metrics.count('CallbacksReceived', 1, { provider: 'airtel', account: 'ug' });
      for (let i = 0; i < 150; i++) metrics.timing('AckLatency', i, { provider: 'momo', account: 'demo' });
      metrics.count('VerificationDisagreements', 1);
      metrics.flush();
    });

    // Assess
    expect(real.stdout.length).toBeGreaterThan(2);
    expect(real.stdout.map((line) => JSON.parse(line))[0]._aws.Timestamp).toBe(Date.now());
    expect(slim).toEqual(real);
  });

  it('publishes on its own at 100 metrics, and with the default service dimension when none is cleared', () => {
    // Act
    const { real, slim } = both((Class) => {
      const metrics = new Class({ namespace: 'Test', serviceName: 'relay-callback' });
      for (let i = 0; i < 101; i++) metrics.addMetric(`M${i}`, 'Count', i);
      metrics.publishStoredMetrics();
    });

    // Assess
    expect(real.stdout).toHaveLength(2);
    expect(slim).toEqual(real);
  });

  it('refuses a bad metric, a changed unit and a metric named like a dimension with the same errors', () => {
    const cases: Array<(metrics: Metrics) => void> = [
      (m) => m.addMetric('', 'Count', 1),
      (m) => m.addMetric('X', 'Lightyears' as 'Count', 1),
      (m) => m.addMetric('X', 'Count', '1' as unknown as number),
      (m) => m.addMetric('X', 'Count', 1).addMetric('X', 'Milliseconds', 1),
      (m) => m.addDimensions({ provider: 'momo' }).addMetric('provider', 'Count', 1).publishStoredMetrics(),
    ];
    for (const call of cases) {
      // Act
      const { real, slim } = both((Class) => call(new Class({ namespace: 'Test' })));

      // Assess
      expect(real.error, String(call)).toBeDefined();
      expect(slim, String(call)).toEqual(real);
    }
  });

  it('warns alike about empty dimensions, repeated dimensions and nothing to publish', () => {
    // Act
    const { real, slim } = both((Class) => {
      const metrics = new Class({ namespace: 'Test' });
      metrics.publishStoredMetrics();
      metrics.addDimensions({ provider: '', account: 'demo' });
      metrics.addDimensions({ service: 'other' });
      metrics.addMetric('X', 'Count', 1);
      metrics.publishStoredMetrics();
    });

    // Assess
    expect(real.stderr.length).toBeGreaterThan(2);
    expect(slim).toEqual(real);
  });

  it('reads the namespace, service name and switches from the same environment variables', () => {
    const environments: Array<Record<string, string>> = [
      { POWERTOOLS_METRICS_NAMESPACE: 'FromEnv', POWERTOOLS_SERVICE_NAME: 'relay-callback' },
      { POWERTOOLS_METRICS_NAMESPACE: '' },
      { POWERTOOLS_METRICS_DISABLED: 'true' },
      { POWERTOOLS_METRICS_DISABLED: 'off', POWERTOOLS_DEV: 'true' },
    ];
    for (const env of environments) {
      // Prepare
      for (const [key, value] of Object.entries(env)) vi.stubEnv(key, value);
      const log = vi.spyOn(console, 'log').mockImplementation(() => {});
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});

      // Act
      const { real, slim } = both((Class) => {
        new Class().addMetric('X', 'Count', 1).publishStoredMetrics();
      });
      const calls = [log.mock.calls.length, warn.mock.calls.length];
      log.mockRestore();
      warn.mockRestore();
      vi.unstubAllEnvs();

      // Assess
      expect(slim, JSON.stringify(env)).toEqual(real);
      // In dev mode both write through the global console: as many calls each.
      expect(calls[0]! % 2, JSON.stringify(env)).toBe(0);
    }
  });
});
