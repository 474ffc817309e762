import { randomBytes } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { describe, expect, it, vi } from 'vitest';
import { DeliveryEngine } from '../../../../shared/app/delivery/engine';
import type { WebhookRequest, WebhookResponse, WebhookSender } from '../../../../shared/app/delivery/ports';
import { MemoryDeliveryLog } from '../../../../shared/adapters/memory/delivery-log';
import { MemoryDestinationStates } from '../../../../shared/adapters/memory/destination-states';
import { destinationSchema, DEFAULT_RETRY_SCHEDULE_SECONDS } from '../../../../shared/config/schema';
import { buildEvent } from '../../../../shared/domain/events';
import { createScrubber } from '../../../../shared/util/redact';
import { DrivenTime } from '../../../helpers/driven-time';

const secret = `whsec_${randomBytes(32).toString('base64')}`;

/** Answers from a script, one per request, and keeps what it was sent. */
class ScriptedSender implements WebhookSender {
  readonly requests: WebhookRequest[] = [];
  constructor(
    private readonly script: (
      request: WebhookRequest,
      n: number,
    ) => WebhookResponse | Promise<WebhookResponse>,
  ) {}
  async send(request: WebhookRequest): Promise<WebhookResponse> {
    this.requests.push(request);
    return this.script(request, this.requests.length);
  }
}

const answer = (status: number, extra: Partial<WebhookResponse> = {}): WebhookResponse =>
  ({ kind: 'answered', status, excerpt: '', ...extra }) as WebhookResponse;

function event(reference = 'ref-1', occurredAt = '2026-11-29T05:00:00.000Z') {
  return buildEvent('TransactionSucceeded', `momo:acct:${reference}`, 'SUCCEEDED', 'callback', occurredAt, {
    provider: 'momo',
    account: 'acct',
    reference,
  });
}

function setup(
  sender: WebhookSender,
  destinations: Record<string, Record<string, unknown>> = { partner: {} },
  onDisabled?: (d: string, reason: string) => void,
  otherSecrets: string[] = [],
) {
  const time = new DrivenTime();
  const log = new MemoryDeliveryLog();
  const parsed = Object.fromEntries(
    Object.entries(destinations).map(([name, d]) => [
      name,
      destinationSchema.parse({ url: `https://${name}.example.com/hooks`, signingSecrets: [secret], ...d }),
    ]),
  );
  const engine = new DeliveryEngine({
    destinations: parsed,
    secretsOf: (name) => parsed[name]!.signingSecrets,
    sender,
    log,
    states: new MemoryDestinationStates(),
    clock: time,
    scheduler: time,
    scrub: createScrubber([secret, ...otherSecrets]),
    runtime: 'aws',
    ...(onDisabled ? { onDisabled } : {}),
  });
  /** Submits an event, lets its first attempt run, then the retry the schedule sets 5 s later. */
  const attemptAndRetry = async () => {
    await engine.submit(event());
    await engine.settled();
    time.advance(DEFAULT_RETRY_SCHEDULE_SECONDS[1]! * 1000);
    await engine.settled();
  };
  return { time, log, engine, attemptAndRetry };
}

describe('webhook delivery engine', () => {
  it('retries a failing destination on the specification schedule, then dead-letters the event', async () => {
    // Prepare
    const sender = new ScriptedSender(() => answer(500));
    const { time, log, engine } = setup(sender);

    // Act
    await engine.submit(event());
    await engine.settled();
    const delays: number[] = [];
    for (let i = 1; i < DEFAULT_RETRY_SCHEDULE_SECONDS.length; i++) {
      delays.push(time.pendingDelays()[0]!);
      time.advance(time.pendingDelays()[0]!);
      await engine.settled();
    }

    // Assess
    expect(delays).toEqual(DEFAULT_RETRY_SCHEDULE_SECONDS.slice(1).map((s) => s * 1000));
    expect(sender.requests).toHaveLength(DEFAULT_RETRY_SCHEDULE_SECONDS.length);
    expect(new Set(sender.requests.map((r) => r.headers['webhook-id']))).toEqual(
      new Set([event().metadata.id]),
    );
    expect(log.attemptList.at(-1)!.outcome).toBe('dead-letter');
    expect(time.pendingDelays()).toEqual([]);
  });

  it('signs each attempt so that the reference library verifies it', async () => {
    // Prepare
    const sender = new ScriptedSender(() => answer(204));
    const { engine } = setup(sender);

    // Act
    await engine.submit(event());
    await engine.settled();

    // Assess
    const [request] = sender.requests;
    expect(new Webhook(secret).verify(request!.body, request!.headers)).toEqual(
      JSON.parse(JSON.stringify(event())),
    );
  });

  it('disables the destination on 410 Gone and tells the operator, sending nothing more', async () => {
    // Prepare
    const disabled: string[] = [];
    const sender = new ScriptedSender(() => answer(410));
    const { time, engine } = setup(sender, { partner: {} }, (d, reason) => disabled.push(`${d}: ${reason}`));

    // Act
    await engine.submit(event('a'));
    await engine.settled();
    await engine.submit(event('b'));
    await engine.settled();
    time.advance(86_400_000);
    await engine.settled();

    // Assess
    expect(disabled).toEqual(['partner: 410 Gone']);
    expect(sender.requests).toHaveLength(1);
    expect(await engine.state('partner')).toMatchObject({ disabled: true });
  });

  it.each([429, 502, 503, 504])(
    'waits at least the Retry-After of a %i before the next attempt',
    async (status) => {
      // Prepare
      const sender = new ScriptedSender((_, n) =>
        n === 1 ? answer(status, { retryAfterSeconds: 120 }) : answer(200),
      );
      const { time, log, engine } = setup(sender);

      // Act
      await engine.submit(event());
      await engine.settled();
      time.advance(119_000);
      await engine.settled();
      const beforeRetryAfter = sender.requests.length;
      time.advance(1_000);
      await engine.settled();

      // Assess
      expect(beforeRetryAfter).toBe(1);
      expect(sender.requests).toHaveLength(2);
      expect(log.attemptList.map((a) => a.outcome)).toEqual(['retrying', 'delivered']);
    },
  );

  it('ignores a Retry-After on other failures: a 500 is retried on the schedule', async () => {
    // Prepare
    const sender = new ScriptedSender((_, n) =>
      n === 1 ? answer(500, { retryAfterSeconds: 120 }) : answer(200),
    );
    const { log, attemptAndRetry } = setup(sender);

    // Act
    await attemptAndRetry();

    // Assess
    expect(log.attemptList.map((a) => [a.status, a.outcome])).toEqual([
      [500, 'retrying'],
      [200, 'delivered'],
    ]);
  });

  it('gives every attempt, a retry included, 15 seconds to answer', async () => {
    // Prepare
    const sender = new ScriptedSender((_, n) =>
      n === 1 ? { kind: 'failed', error: 'no answer' } : answer(200),
    );
    const { attemptAndRetry } = setup(sender);

    // Act
    await attemptAndRetry();

    // Assess
    expect(sender.requests.map((r) => r.timeoutMs)).toEqual([15_000, 15_000]);
  });

  it("gives each attempt the destination's own timeoutMs, 100 ms to 15 s, and no other", async () => {
    // Prepare
    const sender = new ScriptedSender((_, n) =>
      n === 1 ? { kind: 'failed', error: 'no answer within 250 ms' } : answer(200),
    );
    const { attemptAndRetry } = setup(sender, { partner: { timeoutMs: 250 } });

    // Act
    await attemptAndRetry();
    const refused = [99, 15_001, 1.5].map(
      (timeoutMs) => destinationSchema.safeParse({ url: 'https://p.example.com', timeoutMs }).success,
    );

    // Assess
    expect(sender.requests.map((r) => r.timeoutMs)).toEqual([250, 250]);
    expect(refused).toEqual([false, false, false]);
  });

  it('counts a 3xx as a failure and retries the same URL, never the Location', async () => {
    // Prepare
    const sender = new ScriptedSender((_, n) => (n === 1 ? answer(302) : answer(200)));
    const { log, attemptAndRetry } = setup(sender);

    // Act
    await attemptAndRetry();

    // Assess
    expect(log.attemptList.map((a) => [a.status, a.outcome])).toEqual([
      [302, 'retrying'],
      [200, 'delivered'],
    ]);
    expect(sender.requests.map((r) => r.url)).toEqual([
      'https://partner.example.com/hooks',
      'https://partner.example.com/hooks',
    ]);
  });

  it('disables a destination after its configured consecutive failures', async () => {
    // Prepare
    const disabled: string[] = [];
    const sender = new ScriptedSender(() => answer(500));
    const { time, engine } = setup(sender, { partner: { disableAfterFailures: 3 } }, (d, reason) =>
      disabled.push(`${d}: ${reason}`),
    );

    // Act
    for (const reference of ['a', 'b', 'c']) await engine.submit(event(reference));
    await engine.settled();
    // The destination's rate (10 per second by default) spaces the three first attempts.
    time.advance(100);
    await engine.settled();
    time.advance(100);
    await engine.settled();

    // Assess
    expect(disabled).toEqual(['partner: 3 consecutive failed attempts']);
  });

  it('delivers to a healthy destination while another never answers (no head-of-line blocking)', async () => {
    // Prepare
    const sender = new ScriptedSender((request) =>
      request.url.includes('dead') ? (new Promise<never>(() => {}) as never) : answer(200),
    );
    const { time, log, engine } = setup(sender, { dead: { concurrency: 1 }, healthy: {} });

    // Act
    for (const reference of ['a', 'b', 'c']) await engine.submit(event(reference));
    for (let step = 0; step < 3; step++) {
      time.advance(100);
      await new Promise((resolve) => setImmediate(resolve));
    }

    // Assess
    expect(
      log.attemptList.filter((a) => a.destination === 'healthy' && a.outcome === 'delivered'),
    ).toHaveLength(3);
    expect(sender.requests.filter((r) => r.url.includes('dead'))).toHaveLength(1);
  });

  it('keeps at most the destination concurrency of attempts in flight', async () => {
    // Prepare: each answer takes a second of driven time.
    let inFlight = 0;
    let most = 0;
    const { time, log, engine } = setup(
      new ScriptedSender(() => {
        inFlight += 1;
        most = Math.max(most, inFlight);
        return new Promise<WebhookResponse>((resolve) =>
          time.after(1000, () => {
            inFlight -= 1;
            resolve(answer(200));
          }),
        );
      }),
      { partner: { concurrency: 2, ratePerSecond: 1000 } },
    );

    // Act
    for (const reference of ['a', 'b', 'c', 'd', 'e', 'f']) await engine.submit(event(reference));
    await vi.waitFor(
      () => {
        time.advance(250);
        expect(log.attemptList.filter((a) => a.outcome === 'delivered')).toHaveLength(6);
      },
      { timeout: 60_000, interval: 5 },
    );

    // Assess
    expect(most).toBe(2);
  });

  it('starts at most ratePerSecond attempts a second', async () => {
    // Prepare
    const starts: number[] = [];
    const { time, log, engine } = setup(
      new ScriptedSender(() => {
        starts.push(time.now().getTime());
        return answer(200);
      }),
      { partner: { concurrency: 10, ratePerSecond: 2 } },
    );

    // Act
    for (const reference of ['a', 'b', 'c', 'd', 'e']) await engine.submit(event(reference));
    await vi.waitFor(
      () => {
        time.advance(100);
        expect(log.attemptList.filter((a) => a.outcome === 'delivered')).toHaveLength(5);
      },
      { timeout: 60_000, interval: 5 },
    );

    // Assess: 500 ms apart at least.
    const gaps = starts.slice(1).map((at, i) => at - starts[i]!);
    expect(gaps).toHaveLength(4);
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(500);
  });

  it('delivers only the events a destination filter accepts', async () => {
    // Prepare
    const sender = new ScriptedSender(() => answer(200));
    const { engine } = setup(sender, { partner: { filter: { eventTypes: ['TransactionFailed'] } } });

    // Act
    const targets = await engine.submit(event());

    // Assess
    expect(targets).toEqual([]);
    expect(sender.requests).toHaveLength(0);
  });

  it('replays to one destination with the same webhook-id after a dry-run count, audited with its actor', async () => {
    // Prepare
    const sender = new ScriptedSender(() => answer(200));
    const { time, log, engine } = setup(sender);
    await engine.submit(event('a', '2026-11-29T05:00:00.000Z'));
    await engine.submit(event('b', '2026-11-29T06:00:00.000Z'));
    await engine.settled();
    time.advance(100);
    await engine.settled();

    // Act
    const dryRun = await engine.replay(
      'partner',
      { from: '2026-11-29T05:30:00.000Z' },
      { dryRun: true, actor: 'ops@example.com' },
    );
    const afterDryRun = sender.requests.length;
    const replay = await engine.replay(
      'partner',
      { from: '2026-11-29T05:30:00.000Z' },
      { dryRun: false, actor: 'ops@example.com' },
    );
    time.advance(100);
    await engine.settled();

    // Assess
    expect(dryRun).toEqual({ count: 1 });
    expect(afterDryRun).toBe(2);
    expect(replay).toEqual({ count: 1 });
    expect(sender.requests.at(-1)!.headers['webhook-id']).toBe(event('b').metadata.id);
    expect(log.replays).toEqual([expect.objectContaining({ actor: 'ops@example.com', count: 1 })]);
    expect(log.attemptList.at(-1)).toMatchObject({ replayedBy: 'ops@example.com', outcome: 'delivered' });
  });

  it('scrubs secrets and masks phone numbers in the logged response excerpt', async () => {
    // Prepare
    const sender = new ScriptedSender(() =>
      answer(400, { excerpt: `bad signature for ${secret} from 256772123456` }),
    );
    const { log, engine } = setup(sender);

    // Act
    await engine.submit(event());
    await engine.settled();

    // Assess
    const [attempt] = log.attemptList;
    expect(attempt!.excerpt).not.toContain(secret);
    expect(attempt!.excerpt).not.toContain('256772123456');
  });

  it('scrubs a configured secret holding a phone-number-like run of digits before masking numbers', async () => {
    // Prepare: a provider API key the endpoint echoes; masking its digits first hid it from the scrubber.
    const apiKey = 'sk_live_Zq8x-254712345678-Tr9w';
    const sender = new ScriptedSender(() => answer(400, { excerpt: `unexpected key ${apiKey}` }));
    const { log, engine } = setup(sender, { partner: {} }, undefined, [apiKey]);

    // Act
    await engine.submit(event());
    await engine.settled();

    // Assess
    const [attempt] = log.attemptList;
    expect(attempt!.excerpt).toBe('unexpected key [REDACTED]');
  });

  it('refuses an http destination in AWS', () => {
    // Act
    const build = () =>
      setup(new ScriptedSender(() => answer(200)), { partner: { url: 'http://partner.example.com/' } });

    // Assess
    expect(build).toThrow(/https is required/);
  });
});
