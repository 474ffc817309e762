import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ConsoleRelayMetrics, formatDuration } from '../../../../shared/adapters/metrics/console-metrics';
import {
  DEFAULT_METRICS_NAMESPACE,
  PowertoolsRelayMetrics,
} from '../../../../shared/adapters/metrics/powertools-metrics';

type Emf = {
  _aws: {
    CloudWatchMetrics: Array<{
      Namespace: string;
      Dimensions: string[][];
      Metrics: Array<{ Name: string; Unit: string }>;
    }>;
  };
  [member: string]: unknown;
};

/** The EMF documents Powertools writes (one JSON line each on stdout) during `run`. */
function emitted(run: () => void): Emf[] {
  const lines: string[] = [];
  const spy = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(
      ...String(chunk)
        .split('\n')
        .filter((line) => line.startsWith('{"_aws"')),
    );
    return true;
  });
  try {
    run();
    return lines.map((line) => JSON.parse(line) as Emf);
  } finally {
    spy.mockRestore();
  }
}

afterEach(() => vi.unstubAllEnvs());

describe('PowertoolsRelayMetrics', () => {
  it('writes nothing when nothing was recorded', () => {
    const metrics = new PowertoolsRelayMetrics({ namespace: 'Test' });
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {});
    expect(emitted(() => metrics.flush())).toEqual([]);
    expect(warn).not.toHaveBeenCalled();
    warn.mockRestore();
  });

  it('publishes each metric without dimensions (the alarms) and with its own (dashboards), counts summed', () => {
    const metrics = new PowertoolsRelayMetrics({ namespace: 'Relay/Test' });
    metrics.count('TransactionsExpired', 1, { provider: 'momo', account: 'demo' });
    metrics.count('TransactionsExpired', 1, { account: 'demo', provider: 'momo' });
    metrics.timing('PickupDelay', 1200, { provider: 'momo', account: 'demo' });
    metrics.timing('PickupDelay', 300, { provider: 'momo', account: 'demo' });
    const docs = emitted(() => metrics.flush());
    expect(docs).toHaveLength(1);
    const [doc] = docs;
    expect(doc!._aws.CloudWatchMetrics).toEqual([
      {
        Namespace: 'Relay/Test',
        Dimensions: [[], ['provider', 'account']],
        Metrics: [
          { Name: 'TransactionsExpired', Unit: 'Count' },
          { Name: 'PickupDelay', Unit: 'Milliseconds' },
        ],
      },
    ]);
    expect(doc).toMatchObject({
      provider: 'momo',
      account: 'demo',
      TransactionsExpired: 2,
      PickupDelay: [1200, 300],
    });
    // No service dimension: a metric is the same series whichever function emitted it.
    expect(doc!.service).toBeUndefined();
  });

  it('publishes a metric in METRICS_WITHOUT_ROLL_UP with its dimensions only, the others beside it with their roll-up', () => {
    // Prepare
    const metrics = new PowertoolsRelayMetrics({ namespace: 'Relay/Test' });
    metrics.count('SilentProviders', 1, { provider: 'momo' });
    metrics.count('CallbacksBuffered', 1, { provider: 'momo' });
    // Act
    const docs = emitted(() => metrics.flush());
    // Assess: no series without dimensions for SilentProviders (nothing reads it: $0.30 a month saved).
    const directives = docs.flatMap((d) => d._aws.CloudWatchMetrics);
    const of = (name: string) => directives.filter((c) => c.Metrics.some((m) => m.Name === name));
    expect(of('SilentProviders').map((c) => c.Dimensions)).toEqual([[['provider']]]);
    expect(of('CallbacksBuffered').map((c) => c.Dimensions)).toEqual([[[], ['provider']]]);
    expect(docs.find((d) => 'SilentProviders' in d)).toMatchObject({
      provider: 'momo',
      SilentProviders: 1,
    });
  });

  it('gives each distinct set of dimension values its own document (one value per dimension each)', () => {
    const metrics = new PowertoolsRelayMetrics({ namespace: 'Test' });
    metrics.count('TransactionsFinalized', 1, { origin: 'poll' });
    metrics.count('TransactionsFinalized', 1, { origin: 'callback' });
    metrics.count('TransactionsFinalized', 1, { origin: 'poll' });
    metrics.count('PollCycleFailures');
    const docs = emitted(() => metrics.flush());
    expect(docs).toHaveLength(3);
    const byOrigin = Object.fromEntries(docs.map((d) => [String(d.origin ?? '-'), d]));
    expect(byOrigin.poll).toMatchObject({ TransactionsFinalized: 2 });
    expect(byOrigin.poll!._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([[], ['origin']]);
    expect(byOrigin.callback).toMatchObject({ TransactionsFinalized: 1 });
    expect(byOrigin['-']).toMatchObject({ PollCycleFailures: 1 });
    expect(byOrigin['-']!._aws.CloudWatchMetrics[0]!.Dimensions).toEqual([[]]);
  });

  it('starts empty after a flush', () => {
    const metrics = new PowertoolsRelayMetrics({ namespace: 'Test' });
    metrics.count('StatusCallErrors', 1, { provider: 'airtel', account: 'ug', error: 'timeout' });
    expect(emitted(() => metrics.flush())).toHaveLength(1);
    expect(emitted(() => metrics.flush())).toEqual([]);
  });

  it('keeps within the EMF limit of 100 values per metric by splitting documents', () => {
    const metrics = new PowertoolsRelayMetrics({ namespace: 'Test' });
    for (let i = 0; i < 250; i++) metrics.timing('TimeToFinal', i, { provider: 'momo' });
    const docs = emitted(() => metrics.flush());
    expect(docs.map((d) => (d.TimeToFinal as number[]).length)).toEqual([100, 100, 50]);
  });

  it('uses POWERTOOLS_METRICS_NAMESPACE, else MobileMoneyRelay', () => {
    vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', '');
    const byDefault = new PowertoolsRelayMetrics();
    byDefault.count('AmbiguousEscalated');
    expect(emitted(() => byDefault.flush())[0]!._aws.CloudWatchMetrics[0]!.Namespace).toBe(
      DEFAULT_METRICS_NAMESPACE,
    );
    vi.stubEnv('POWERTOOLS_METRICS_NAMESPACE', 'Payments/Relay');
    const configured = new PowertoolsRelayMetrics();
    configured.count('AmbiguousEscalated');
    expect(emitted(() => configured.flush())[0]!._aws.CloudWatchMetrics[0]!.Namespace).toBe('Payments/Relay');
  });

  it('never throws from flush: a refused metric is reported and the rest still written', () => {
    const errors: string[] = [];
    const metrics = new PowertoolsRelayMetrics({ namespace: 'Test', onError: (e) => errors.push(e.message) });
    metrics.count('', 1, { provider: 'momo' });
    metrics.count('VerificationDisagreements', 1);
    let docs: Emf[] = [];
    expect(() => (docs = emitted(() => metrics.flush()))).not.toThrow();
    expect(errors).toHaveLength(1);
    expect(docs).toHaveLength(1);
    expect(docs[0]).toMatchObject({ VerificationDisagreements: 1 });
  });

  it('writes through an injected Powertools instance', () => {
    const instance = new Metrics({ namespace: 'Injected', serviceName: 'relay-poller' });
    const metrics = new PowertoolsRelayMetrics({ metrics: instance });
    metrics.count('CallbackSilence', 1, { provider: 'daraja', account: 'ke' });
    const [doc] = emitted(() => metrics.flush());
    expect(doc!._aws.CloudWatchMetrics[0]!.Namespace).toBe('Injected');
    expect(doc!.service).toBeUndefined();
  });
});

describe('ConsoleRelayMetrics', () => {
  it('prints one readable line per flush, provider and account summed over, other dimensions kept', () => {
    const lines: string[] = [];
    const metrics = new ConsoleRelayMetrics({ write: (line) => lines.push(line) });
    metrics.count('TransactionsExpired', 1, { provider: 'momo', account: 'demo' });
    for (let i = 0; i < 3; i++) metrics.count('TransactionsFinalized', 1, { origin: 'poll' });
    metrics.timing('TimeToFinal', 2_100, { provider: 'momo' });
    metrics.timing('TimeToFinal', 800, { provider: 'airtel' });
    metrics.timing('TimeToFinal', 65_000, { provider: 'daraja' });
    metrics.flush();
    expect(lines).toEqual([
      '  ⇢ metrics TransactionsExpired=1 TransactionsFinalized{origin=poll}=3 TimeToFinal p50=2.1s p95=1.1min max=1.1min n=3',
    ]);
  });

  it('prints nothing when nothing was recorded, and starts over after each flush', () => {
    const lines: string[] = [];
    const metrics = new ConsoleRelayMetrics({ write: (line) => lines.push(line) });
    metrics.flush();
    metrics.count('PollCycleFailures');
    metrics.flush();
    metrics.flush();
    expect(lines).toEqual(['  ⇢ metrics PollCycleFailures=1']);
  });

  it('leaves out zero values (a gauge written every cycle) and prints nothing when only zeros were recorded', () => {
    // Prepare
    const lines: string[] = [];
    const metrics = new ConsoleRelayMetrics({ write: (line) => lines.push(line) });
    // Act
    metrics.count('SilentAccounts', 0);
    metrics.flush();
    metrics.count('SilentAccounts', 0);
    metrics.count('CallbacksResumed', 1);
    metrics.flush();
    // Assess
    expect(lines).toEqual(['  ⇢ metrics CallbacksResumed=1']);
  });

  it('prints a line the same as the last one again only a minute after it, any other at once', () => {
    // Prepare: a poller reading a badge shop every 2 s.
    const lines: string[] = [];
    let now = 0;
    const metrics = new ConsoleRelayMetrics({ write: (line) => lines.push(line), now: () => now });
    const read = () => {
      metrics.count('BadgeReads', 1, { shop: 'demo' });
      metrics.flush();
      now += 2_000;
    };
    // Act: 31 reads (a minute and 2 s), then something else.
    for (let i = 0; i < 31; i++) read();
    metrics.count('CallbacksRejected', 1);
    metrics.flush();
    read();
    // Assess
    expect(lines).toEqual([
      '  ⇢ metrics BadgeReads{shop=demo}=1',
      '  ⇢ metrics BadgeReads{shop=demo}=1 (the line before: 29 more like it)',
      '  ⇢ metrics CallbacksRejected=1',
      '  ⇢ metrics BadgeReads{shop=demo}=1',
    ]);
  });

  it('keeps every dimension when told not to collapse any', () => {
    const lines: string[] = [];
    const metrics = new ConsoleRelayMetrics({ write: (line) => lines.push(line), collapse: [] });
    metrics.count('StatusCallErrors', 2, { provider: 'airtel', account: 'ug', error: 'timeout' });
    metrics.flush();
    expect(lines).toEqual(['  ⇢ metrics StatusCallErrors{account=ug,error=timeout,provider=airtel}=2']);
  });

  it('formats durations for people', () => {
    expect([850, 12_340, 252_000, 11_160_000].map(formatDuration)).toEqual([
      '850ms',
      '12.3s',
      '4.2min',
      '3.1h',
    ]);
  });
});
