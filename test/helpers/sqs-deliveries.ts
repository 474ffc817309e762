import { MemoryDeliveryLog } from '../../shared/adapters/memory/delivery-log';
import { MemoryDestinationStates } from '../../shared/adapters/memory/destination-states';
import { DeliveryEngine } from '../../shared/app/delivery/engine';
import type { WebhookSender } from '../../shared/app/delivery/ports';
import { destinationSchema } from '../../shared/config/schema';
import type { DestinationIo } from '../../shared/destinations/ports';
import type { DestinationRuntime } from '../../shared/destinations/types';
import { buildEvent } from '../../shared/domain/events';
import { createScrubber } from '../../shared/util/redact';
import { DrivenTime } from './driven-time';

/**
 * One sqs destination, `partner`, behind the delivery engine on in-memory logs and a driven clock: what the
 * sqs destination's tests share, whichever SQS they deliver to (a mocked client, the local endpoint of
 * test/helpers/delivery-sqs-endpoint.ts, an emulator, STS or none).
 */

/** The sender of webhook destinations: an sqs destination must never reach it. */
const noHttp: WebhookSender = {
  send: () => Promise.reject(new Error('an sqs destination never sends HTTP')),
};

/** A TransactionSucceeded of `momo/acct`, as the relay publishes it. */
export function succeededEvent(reference: string) {
  return buildEvent(
    'TransactionSucceeded',
    `momo:acct:${reference}`,
    'SUCCEEDED',
    'callback',
    '2026-11-29T05:00:00.000Z',
    { provider: 'momo', account: 'acct', reference },
  );
}

/**
 * The engine with `partner` = `{ type: 'sqs', signingSecrets: [secret], ...destination }` (the engine
 * refuses a destination its runtime cannot reach: then this throws). `time` is the engine's clock and
 * scheduler, from now unless given: the reference library checks a signature's timestamp against the real
 * clock (5 minutes). `deliver` submits an event, waits until the engine is idle and answers its attempts.
 */
export function sqsDeliveries(options: {
  secret: string;
  destination: Record<string, unknown>;
  io: Omit<DestinationIo, 'http' | 'now'>;
  runtime: DestinationRuntime;
  time?: DrivenTime;
}) {
  const { secret, io, runtime, time = new DrivenTime() } = options;
  const log = new MemoryDeliveryLog();
  const states = new MemoryDestinationStates();
  const partner = destinationSchema.parse({
    type: 'sqs',
    signingSecrets: [secret],
    ...options.destination,
  });
  const disabled: string[] = [];
  const engine = new DeliveryEngine({
    destinations: { partner },
    secretsOf: () => partner.signingSecrets,
    sender: noHttp,
    io,
    log,
    states,
    clock: time,
    scheduler: time,
    scrub: createScrubber([secret]),
    runtime,
    onDisabled: (_destination, reason) => disabled.push(reason),
  });
  const deliver = async (published: ReturnType<typeof succeededEvent>) => {
    await engine.submit(published);
    await engine.settled();
    return log.attempts({ correlationId: published.metadata.correlationId });
  };
  return { engine, time, log, states, disabled, deliver };
}
