import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { DeliveryEngine, DeliveryEngineStoppedError } from '../../../../shared/app/delivery/engine';
import type { WebhookRequest, WebhookResponse, WebhookSender } from '../../../../shared/app/delivery/ports';
import { MemoryDeliveryLog } from '../../../../shared/adapters/memory/delivery-log';
import { MemoryDestinationStates } from '../../../../shared/adapters/memory/destination-states';
import { destinationSchema } from '../../../../shared/config/schema';
import { buildEvent } from '../../../../shared/domain/events';
import { createScrubber } from '../../../../shared/util/redact';
import { DrivenTime } from '../../../helpers/driven-time';
import { watched } from '../../../helpers/driven-timers';

/**
 * The engine as npm start stops it (local/relay.ts): nothing starts or writes after its stop, the attempt
 * in flight is waited for (until the stop is hurried), and a failed store write is never an unhandled
 * rejection.
 */

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const answer = (status: number): WebhookResponse =>
  ({ kind: 'answered', status, excerpt: '' }) as WebhookResponse;

/** A sender whose every answer waits until the test gives it. */
class HeldSender implements WebhookSender {
  readonly requests: WebhookRequest[] = [];
  private readonly waiting: ((response: WebhookResponse) => void)[] = [];
  private arrived: (() => void) | undefined;
  send(request: WebhookRequest): Promise<WebhookResponse> {
    this.requests.push(request);
    this.arrived?.();
    return new Promise((resolve) => this.waiting.push(resolve));
  }
  /** Resolves once `n` requests were sent. */
  sent(n: number): Promise<void> {
    if (this.requests.length >= n) return Promise.resolve();
    return new Promise((resolve) => {
      this.arrived = () => {
        if (this.requests.length >= n) resolve();
      };
    });
  }
  answer(response: WebhookResponse): void {
    this.waiting.shift()?.(response);
  }
}

class FailingLog extends MemoryDeliveryLog {
  failAttempts = false;
  override async recordAttempt(...args: Parameters<MemoryDeliveryLog['recordAttempt']>): Promise<void> {
    if (this.failAttempts) throw new Error('ResourceNotFoundException: Requested resource not found');
    return super.recordAttempt(...args);
  }
}

function setup(sender: WebhookSender) {
  const time = new DrivenTime();
  const log = new FailingLog();
  const warnings: string[] = [];
  const partner = destinationSchema.parse({
    url: 'https://partner.example.com/hooks',
    signingSecrets: [secret],
    retryScheduleSeconds: [0, 5, 300],
  });
  const engine = new DeliveryEngine({
    destinations: { partner },
    secretsOf: () => [secret],
    sender,
    log,
    states: new MemoryDestinationStates(),
    clock: time,
    scheduler: time,
    scrub: createScrubber([secret]),
    runtime: 'aws',
    logger: { warn: (message) => warnings.push(message) },
  });
  const event = buildEvent(
    'TransactionSucceeded',
    'momo:acct:ref-1',
    'SUCCEEDED',
    'callback',
    '2026-11-29T05:00:00.000Z',
    {
      provider: 'momo',
      account: 'acct',
      reference: 'ref-1',
    },
  );
  return { time, log, engine, event, warnings };
}

describe('webhook delivery engine, stopped', () => {
  it('waits for the attempt in flight, and runs no retry that comes due after the stop', async () => {
    // Prepare: the first attempt is in flight at the endpoint.
    const sender = new HeldSender();
    const { time, log, engine, event } = setup(sender);
    await engine.submit(event);
    await sender.sent(1);

    // Act: stop while it is in flight, then the endpoint answers 500 (a retry is due 5 s later).
    const stopped = watched(engine.stop());
    await Promise.resolve();
    const waitedForAttempt = !stopped.settled();
    sender.answer(answer(500));
    await stopped.promise;
    time.advance(10_000);
    await engine.settled();

    // Assess: the stop waited for the attempt, whose outcome was logged before the stop ended; no retry.
    expect(waitedForAttempt).toBe(true);
    expect(log.attemptList.map((a) => a.outcome)).toEqual(['retrying']);
    expect(sender.requests).toHaveLength(1);
  });

  it('stops waiting when hurried, and the attempt that answers later writes nothing', async () => {
    // Prepare
    const sender = new HeldSender();
    const { log, engine, event } = setup(sender);
    await engine.submit(event);
    await sender.sent(1);
    const hurry = new AbortController();

    // Act: the stop is hurried (a second Ctrl-C) before the endpoint answers.
    const stopped = engine.stop(hurry.signal);
    hurry.abort();
    await stopped;
    sender.answer(answer(200));
    await engine.settled();

    // Assess
    expect(log.attemptList).toEqual([]);
  });

  it('refuses an event submitted after the stop (its batch is published again by the next start)', async () => {
    // Prepare
    const { engine, event, log } = setup(new HeldSender());
    await engine.stop();

    // Act + Assess
    await expect(engine.submit(event)).rejects.toBeInstanceOf(DeliveryEngineStoppedError);
    expect(log.eventsById.size).toBe(0);
  });

  it('logs an attempt whose log write fails (no unhandled rejection) and makes it again once the store answers', async () => {
    // Prepare: the endpoint answers at once; the log cannot be written.
    const sender = new HeldSender();
    const { time, log, engine, event, warnings } = setup(sender);
    log.failAttempts = true;
    const unhandled: unknown[] = [];
    const collect = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', collect);
    try {
      // Act
      await engine.submit(event);
      await sender.sent(1);
      sender.answer(answer(200));
      await engine.settled();
      log.failAttempts = false;
      time.advance(5000);
      await sender.sent(2);
      sender.answer(answer(200));
      await engine.settled();
      // A rejection nobody handled is reported after the microtasks of this turn.
      await new Promise((resolve) => setImmediate(resolve));
    } finally {
      process.off('unhandledRejection', collect);
    }

    // Assess: logged, made again with the same attempt number, then delivered and logged.
    expect(unhandled).toEqual([]);
    expect(warnings).toEqual(['webhook attempt not recorded (the store failed); made again later']);
    expect(sender.requests.map((r) => r.headers['webhook-id'])).toEqual([
      event.metadata.id,
      event.metadata.id,
    ]);
    expect(log.attemptList.map((a) => [a.attempt, a.outcome])).toEqual([[0, 'delivered']]);
  });
});
