import { randomBytes, randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { MemoryStore } from '../../shared/adapters/memory/memory-store';
import { getTransaction } from '../../shared/app/transactions/get-transaction';
import { registerTransaction } from '../../shared/app/transactions/register-transaction';
import { parseConfig } from '../../shared/config/load';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ChangeMessageVisibilityCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createDeliveryHandler } from '../../functions/delivery/handler';
import { DynamoDeliveryLog } from '../../shared/adapters/dynamodb/delivery-log';
import {
  DESTINATION_STATE_CACHE_MS,
  DynamoDestinationStateStore,
} from '../../shared/adapters/dynamodb/destination-state-store';
import {
  type DeliveryAdmin,
  pauseDestination,
  replayDeliveries,
  resumeDestination,
  rotateSecret,
  secretRefResolver,
} from '../../shared/app/delivery/destinations-admin';
import type { Actor } from '../../shared/domain/actor';
import { sqsDeliveryQueue } from '../../shared/adapters/sqs/sqs-delivery-queue';
import { HttpWebhookSender } from '../../shared/adapters/webhooks/http-sender';
import {
  type DeliveryMessage,
  PAUSED_RECHECK_SECONDS,
  replayToQueue,
} from '../../shared/app/delivery/queue-delivery';
import { signingSecretsOf } from '../../shared/app/delivery/signing-secrets';
import { destinationSchema } from '../../shared/config/schema';
import { buildEvent } from '../../shared/domain/events';
import { eventsFromChange } from '../../shared/domain/outbox';
import { createScrubber } from '../../shared/util/redact';
import { createTestTable } from '../helpers/dynamo';

/*
 * The AWS delivery function's handler with a real SQS event shape, the real HTTP sender, the delivery log
 * and the destination states in DynamoDB Local, and the signing secret read by reference. SQS itself is
 * aws-sdk-client-mock (no SQS emulator here): what the handler asks of it is what is asserted. AWS refuses
 * http and loopback hosts, so the sender is pointed at the local receiver below the engine's checks.
 */

const QUEUE_ARN = 'arn:aws:sqs:eu-west-1:123456789012:relay-delivery-shop';
const SECRET = `whsec_${randomBytes(32).toString('base64')}`;
// Now: the reference library checks the signature's timestamp against the real clock (5 minutes' tolerance).
const START = Date.now();

let table: Awaited<ReturnType<typeof createTestTable>>;
let server: Server;
let port: number;
let answers: Array<{ status: number; body: string }> = [];
const received: { headers: IncomingHttpHeaders; body: string }[] = [];
const sqs = mockClient(SQSClient);
// The mock patches the client class every later file of this worker shares: undo it.
afterAll(() => sqs.restore());

beforeAll(async () => {
  table = await createTestTable();
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers.shift() ?? { status: 200, body: 'ok' };
      res.writeHead(answer.status).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  await table.drop();
});
afterEach(() => {
  sqs.reset();
  secretStore.clear();
  received.length = 0;
  answers = [];
});

/** Secrets Manager as the functions read it: the destination's secret, and any rotated-in one by its id. */
const secretStore = new Map<string, string>();

function world(
  destinationOverrides: Record<string, unknown> = {},
  name = 'shop',
  wait: (ms: number) => Promise<void> = async () => {},
) {
  const now = { ms: START };
  const clock = { now: () => new Date(now.ms) };
  const destinations: Record<string, ReturnType<typeof destinationSchema.parse>> = {
    [name]: destinationSchema.parse({
      url: 'https://shop.example.com/hooks',
      signingSecretId: 'mobile-money-relay/webhooks/shop',
      ratePerSecond: 1000,
      ...destinationOverrides,
    }),
  };
  const log = new DynamoDeliveryLog(table.doc, { tableName: table.tableName, retentionDays: 30 });
  // As the delivery function wires it: the one store, read through its 5-second cache on the test's clock.
  const states = new DynamoDestinationStateStore(table.doc, {
    tableName: table.tableName,
    cacheMs: DESTINATION_STATE_CACHE_MS,
    now: () => now.ms,
  });
  const readSecret = async (id: string) => {
    if (id === 'mobile-money-relay/webhooks/shop') return JSON.stringify({ signingSecret: SECRET });
    const secret = secretStore.get(id);
    if (secret === undefined) throw new Error(`ResourceNotFoundException: ${id}`);
    return JSON.stringify({ signingSecret: secret });
  };
  const counted: string[] = [];
  const sender = new HttpWebhookSender();
  const queue = sqsDeliveryQueue(new SQSClient({ region: 'eu-west-1' }));
  // The management API's side, as shared/runtime/lambda.ts wires it: its own store instance, no cache.
  const admin: DeliveryAdmin = {
    destinations,
    log,
    states: new DynamoDestinationStateStore(table.doc, { tableName: table.tableName }),
    resolveSecret: secretRefResolver({ runtime: 'aws', readSecret }),
    replay: (destination, selector, options) =>
      replayToQueue({ log, queue, queueArns: { [name]: QUEUE_ARN }, clock }, destination, selector, options),
  };
  const handler = createDeliveryHandler({
    destinations,
    // The secret by reference, as Secrets Manager holds it.
    secretsOf: async (destination) => signingSecretsOf(destinations[destination]!, readSecret),
    resolveSecret: secretRefResolver({ runtime: 'aws', readSecret }),
    sender: {
      send: (request) =>
        sender.send({ ...request, url: `http://127.0.0.1:${port}/hooks`, allowPrivateAddresses: true }),
    },
    log,
    states,
    queue,
    clock,
    scrub: createScrubber([SECRET]),
    logger: { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} },
    metrics: { count: (name) => void counted.push(name), timing: () => {}, flush: () => {} },
    wait,
  });
  return { now, clock, handler, log, counted, admin };
}

let sequence = 0;
function paymentEvent() {
  sequence += 1;
  return buildEvent(
    'TransactionSucceeded',
    `momo:acct:ref-${sequence}`,
    'SUCCEEDED',
    'callback',
    new Date(START).toISOString(),
    { provider: 'momo', account: 'acct', reference: `ref-${sequence}`, status: 'SUCCEEDED' },
  );
}

/** A record as Lambda hands it from the destination queue. */
function record(message: DeliveryMessage, sentAtMs = START) {
  return {
    messageId: `m-${randomBytes(4).toString('hex')}`,
    receiptHandle: `rh-${randomBytes(8).toString('hex')}`,
    body: JSON.stringify(message),
    attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(sentAtMs) },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: QUEUE_ARN,
    awsRegion: 'eu-west-1',
  };
}

/** The reference library's verdict, at the time the attempt was signed (a driven clock's retry is hours ahead). */
function verify(delivery: { headers: IncomingHttpHeaders; body: string }) {
  vi.useFakeTimers({ toFake: ['Date'], now: Number(delivery.headers['webhook-timestamp']) * 1000 });
  try {
    return new Webhook(SECRET).verify(delivery.body, delivery.headers as Record<string, string>);
  } finally {
    vi.useRealTimers();
  }
}

describe('delivery function (SQS → signed webhook)', () => {
  it('delivers a rule message once, signed so the reference library verifies it, and acknowledges it', async () => {
    // Prepare
    const { handler, log } = world();
    const event = paymentEvent();
    // Act
    const answer = await handler(
      { Records: [record({ destination: 'shop', attempt: 0, event })] },
      {} as never,
    );
    // Assess
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(received).toHaveLength(1);
    expect(received[0]!.headers['webhook-id']).toBe(event.metadata.id);
    expect(verify(received[0]!)).toEqual(JSON.parse(JSON.stringify(event)));
    const attempts = await log.attempts({ correlationId: event.metadata.correlationId });
    expect(attempts.map((a) => [a.attempt, a.status, a.outcome])).toEqual([[0, 200, 'delivered']]);
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(0);
  });

  it('answers a 500 with the next attempt queued, hides it while early, then delivers it with the same webhook-id', async () => {
    // Prepare
    const { handler, now, log } = world({ retryScheduleSeconds: [0, 7200] });
    const event = paymentEvent();
    answers = [{ status: 500, body: 'try later' }];
    // Act: the first attempt fails
    const first = await handler(
      { Records: [record({ destination: 'shop', attempt: 0, event })] },
      {} as never,
    );
    // Assess: acknowledged, the retry is a new message (SQS delays at most 15 minutes), due in 2 h
    expect(first).toEqual({ batchItemFailures: [] });
    const sent = sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input);
    expect(sent).toHaveLength(1);
    expect(sent[0]).toMatchObject({
      QueueUrl: 'https://sqs.eu-west-1.amazonaws.com/123456789012/relay-delivery-shop',
      DelaySeconds: 900,
    });
    const retry = JSON.parse(sent[0]!.MessageBody!) as DeliveryMessage;
    expect(retry).toMatchObject({
      destination: 'shop',
      attempt: 1,
      dueAt: new Date(START + 7_200_000).toISOString(),
    });
    // Act: received after 15 minutes, early: hidden for the rest of the wait
    now.ms = START + 900_000;
    const early = record(retry);
    const second = await handler({ Records: [early] }, {} as never);
    // Assess
    expect(second).toEqual({ batchItemFailures: [{ itemIdentifier: early.messageId }] });
    expect(sqs.commandCalls(ChangeMessageVisibilityCommand).map((c) => c.args[0].input)).toEqual([
      expect.objectContaining({ ReceiptHandle: early.receiptHandle, VisibilityTimeout: 6300 }),
    ]);
    expect(received).toHaveLength(1);
    // Act: received when due
    now.ms = START + 7_200_000;
    const due = await handler({ Records: [record(retry)] }, {} as never);
    // Assess
    expect(due).toEqual({ batchItemFailures: [] });
    expect(received.map((r) => r.headers['webhook-id'])).toEqual([event.metadata.id, event.metadata.id]);
    for (const delivery of received) expect(verify(delivery)).toBeTruthy();
    const attempts = await log.attempts({ correlationId: event.metadata.correlationId });
    expect(attempts.map((a) => [a.attempt, a.status, a.outcome])).toEqual([
      [0, 500, 'retrying'],
      [1, 200, 'delivered'],
    ]);
  });

  it('disables the destination on 410 and writes DestinationDisabled to the outbox once, without the URL', async () => {
    // Prepare
    const { handler, counted } = world({ url: 'https://user:pw@gone.example.com/hooks' });
    answers = [{ status: 410, body: 'gone' }];
    // Act
    const answer = await handler(
      { Records: [record({ destination: 'shop', attempt: 0, event: paymentEvent() })] },
      {} as never,
    );
    const after = await handler(
      { Records: [record({ destination: 'shop', attempt: 0, event: paymentEvent() })] },
      {} as never,
    );
    // Assess
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(after).toEqual({ batchItemFailures: [] });
    expect(received).toHaveLength(1);
    const item = (await table.listAll()).find((i) => i.pk === 'DST#shop')!;
    const published = eventsFromChange(undefined, item);
    expect(published.map((e) => [e.metadata.type, e.metadata.correlationId, e.data])).toEqual([
      [
        'DestinationDisabled',
        'destinations:shop',
        expect.objectContaining({ destination: 'shop', reason: 'gone', detail: '410 Gone', lastStatus: 410 }),
      ],
    ]);
    expect(JSON.stringify(item)).not.toMatch(/gone\.example|pw@/);
    expect(counted.filter((n) => n === 'DestinationsDisabled')).toHaveLength(1);
    // The next event is not sent: dead-lettered for a replay once resumed.
    await new DynamoDestinationStateStore(table.doc, { tableName: table.tableName }).resume('shop');
  });

  it('disables the destination after disableAfterFailures failures in a row, with one DestinationDisabled and one alarm count', async () => {
    // Prepare
    const { handler, counted } = world({ disableAfterFailures: 2, retryScheduleSeconds: [0, 5, 5] }, 'flaky');
    answers = [
      { status: 500, body: 'down' },
      { status: 502, body: 'down' },
    ];

    // Act: two events fail once each (the streak is the destination's, not the event's), then a third comes
    for (const event of [paymentEvent(), paymentEvent(), paymentEvent()])
      await handler({ Records: [record({ destination: 'flaky', attempt: 0, event })] }, {} as never);

    // Assess
    expect(received).toHaveLength(2);
    const item = (await table.listAll()).find((i) => i.pk === 'DST#flaky')!;
    expect(eventsFromChange(undefined, item).map((e) => [e.metadata.type, e.data])).toEqual([
      [
        'DestinationDisabled',
        expect.objectContaining({
          destination: 'flaky',
          reason: 'consecutive-failures',
          detail: '2 consecutive failed attempts',
          lastStatus: 502,
          consecutiveFailures: 2,
        }),
      ],
    ]);
    expect(counted.filter((n) => n === 'DestinationsDisabled')).toHaveLength(1);
    // Only the first failure was queued for a retry; the third event was dead-lettered unsent.
    expect(queued().map((m) => m.attempt)).toEqual([1]);
    expect(counted.filter((n) => n === 'DeliveriesDeadLettered')).toHaveLength(1);
  });

  it('spaces the attempts of a batch by concurrency / ratePerSecond, so the destination gets at most its rate', async () => {
    // Prepare: 4 a second over at most 2 invocations at once: one every 500 ms in each.
    const waits: number[] = [];
    const { handler, now } = world({ ratePerSecond: 4, concurrency: 2 }, 'rated-shop', async (ms) => {
      waits.push(ms);
      now.ms += ms;
    });
    const messages = [paymentEvent(), paymentEvent(), paymentEvent()].map((event) =>
      record({ destination: 'rated-shop', attempt: 0, event }),
    );

    // Act
    const answer = await handler({ Records: messages }, {} as never);

    // Assess
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(received).toHaveLength(3);
    expect(waits).toEqual([500, 500]);
  });

  it('dead-letters an event when its schedule ends, queryable in the dead-letter store', async () => {
    // Prepare
    const { handler, log, counted } = world({ retryScheduleSeconds: [0, 5] });
    const event = paymentEvent();
    answers = [{ status: 503, body: 'down' }];
    // Act: the last attempt of the schedule fails
    const answer = await handler(
      { Records: [record({ destination: 'shop', attempt: 1, dueAt: new Date(START).toISOString(), event })] },
      {} as never,
    );
    // Assess
    expect(answer).toEqual({ batchItemFailures: [] });
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(0);
    const dead = (await log.deadLetters('shop')).filter((a) => a.eventId === event.metadata.id);
    expect(dead.map((a) => [a.eventId, a.attempt, a.status, a.outcome])).toEqual([
      [event.metadata.id, 1, 503, 'dead-letter'],
    ]);
    expect(counted).toContain('DeliveriesDeadLettered');
  });
});

const operator: Actor = { id: 'ana', name: 'ana', email: null, role: 'admin', via: 'token' };

/** The messages the function put back on the queue (retries, held deliveries, replays). */
function queued(): DeliveryMessage[] {
  return sqs
    .commandCalls(SendMessageCommand)
    .map((c) => JSON.parse(c.args[0].input.MessageBody!) as DeliveryMessage);
}

describe('delivery function with the management API’s destination state (one store)', () => {
  it('holds a paused destination’s deliveries without a failure, and delivers them once resumed', async () => {
    // Prepare
    const { handler, admin, clock, now, log } = world({}, 'paused-shop');
    const event = paymentEvent();
    await pauseDestination(admin, clock, 'paused-shop', operator);
    // Act: the rule's message arrives while paused
    const held = await handler(
      { Records: [record({ destination: 'paused-shop', attempt: 0, event })] },
      {} as never,
    );
    // Assess: acknowledged and put back for later, nothing sent, nothing logged as an attempt, no streak
    expect(held).toEqual({ batchItemFailures: [] });
    expect(received).toHaveLength(0);
    expect(sqs.commandCalls(SendMessageCommand)[0]!.args[0].input.DelaySeconds).toBe(PAUSED_RECHECK_SECONDS);
    const [again] = queued();
    expect(again).toMatchObject({ destination: 'paused-shop', attempt: 0 });
    expect(await log.attempts({ correlationId: event.metadata.correlationId })).toEqual([]);
    expect(await admin.states.get('paused-shop')).toMatchObject({ paused: true, consecutiveFailures: 0 });
    // Act: resumed through the management API; the held message comes back after the recheck
    await resumeDestination(admin, clock, 'paused-shop');
    now.ms += PAUSED_RECHECK_SECONDS * 1000;
    const released = await handler({ Records: [record(again!)] }, {} as never);
    // Assess: delivered with the event's id, logged once as attempt 0
    expect(released).toEqual({ batchItemFailures: [] });
    expect(received.map((r) => r.headers['webhook-id'])).toEqual([event.metadata.id]);
    expect(verify(received[0]!)).toBeTruthy();
    const attempts = await log.attempts({ correlationId: event.metadata.correlationId });
    expect(attempts.map((a) => [a.attempt, a.status, a.outcome])).toEqual([[0, 200, 'delivered']]);
  });

  it('signs with the rotated-in secret and the replaced one during the window, then with the new one only', async () => {
    // Prepare
    const { handler, admin, clock, now } = world({}, 'rotating-shop');
    const fresh = `whsec_${randomBytes(32).toString('base64')}`;
    secretStore.set('mobile-money-relay/webhooks/rotating-shop/2026-11', fresh);
    await rotateSecret(
      admin,
      clock,
      'rotating-shop',
      { secretRef: 'mobile-money-relay/webhooks/rotating-shop/2026-11', windowHours: 24 },
      operator,
    );
    // Act: one delivery inside the window, one after it
    await handler(
      { Records: [record({ destination: 'rotating-shop', attempt: 0, event: paymentEvent() })] },
      {} as never,
    );
    now.ms += 25 * 3_600_000;
    await handler(
      { Records: [record({ destination: 'rotating-shop', attempt: 0, event: paymentEvent() }, now.ms)] },
      {} as never,
    );
    // Assess: the reference library verifies the first with either secret, the second with the new one only
    const [during, after] = received;
    expect(String(during!.headers['webhook-signature']).split(' ')).toHaveLength(2);
    expect(verifyWith(fresh, during!)).toBeTruthy();
    expect(verifyWith(SECRET, during!)).toBeTruthy();
    expect(verifyWith(fresh, after!)).toBeTruthy();
    expect(() => verifyWith(SECRET, after!)).toThrow();
  });

  it('replays to the destination’s queue after a dry-run count, audited with the actor, and re-sends with the same webhook-id', async () => {
    // Prepare: one event delivered
    const { handler, admin, log, now } = world({}, 'replay-shop');
    const event = paymentEvent();
    await handler({ Records: [record({ destination: 'replay-shop', attempt: 0, event })] }, {} as never);
    const transaction = { provider: 'momo', account: 'acct', reference: event.data.reference };
    // Act: the dry run, then the replay
    const dryRun = await replayDeliveries(admin, 'replay-shop', { transaction }, operator);
    const sentBefore = sqs.commandCalls(SendMessageCommand).length;
    const replay = await replayDeliveries(admin, 'replay-shop', { transaction, dryRun: false }, operator);
    // Assess: counted first (nothing queued), then queued to the destination's own queue with who asked
    expect(dryRun).toMatchObject({ dryRun: true, count: 1 });
    expect(sentBefore).toBe(0);
    expect(replay).toMatchObject({ dryRun: false, count: 1 });
    const sent = sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input);
    expect(sent.map((m) => m.QueueUrl)).toEqual([
      'https://sqs.eu-west-1.amazonaws.com/123456789012/relay-delivery-shop',
    ]);
    const message = JSON.parse(sent[0]!.MessageBody!) as DeliveryMessage;
    expect(message).toMatchObject({ destination: 'replay-shop', attempt: 0, replayedBy: 'ana' });
    const audits = (await table.listAll()).filter((i) => i.pk === 'DLVREPLAY#replay-shop');
    expect(audits).toEqual([expect.objectContaining({ actor: 'ana', count: 1 })]);
    // Act: the delivery function takes the replayed message, a minute later
    now.ms += 60_000;
    await handler({ Records: [record(message, now.ms)] }, {} as never);
    // Assess
    expect(received.map((r) => r.headers['webhook-id'])).toEqual([event.metadata.id, event.metadata.id]);
    const attempts = await log.attempts({ correlationId: event.metadata.correlationId });
    expect(attempts.map((a) => [a.attempt, a.outcome, a.replayedBy])).toEqual([
      [0, 'delivered', undefined],
      [0, 'delivered', 'ana'],
    ]);
  });

  it('dead-letters without sending while the management API shows the destination disabled, until a resume', async () => {
    // Prepare: disabled by a 410
    const { handler, admin, clock, now } = world({}, 'gone-shop');
    answers = [{ status: 410, body: 'gone' }];
    await handler(
      { Records: [record({ destination: 'gone-shop', attempt: 0, event: paymentEvent() })] },
      {} as never,
    );
    // Act: the management API reads the same state; a resume there re-enables the function's deliveries
    const shown = await admin.states.get('gone-shop');
    await resumeDestination(admin, clock, 'gone-shop');
    now.ms += DESTINATION_STATE_CACHE_MS;
    await handler(
      { Records: [record({ destination: 'gone-shop', attempt: 0, event: paymentEvent() }, now.ms)] },
      {} as never,
    );
    // Assess
    expect(shown).toMatchObject({ disabled: true, disabledReason: '410 Gone', lastStatus: 410 });
    expect(received.map((r) => r.headers['webhook-id'])).toHaveLength(2);
  });
});

function verifyWith(secret: string, delivery: { headers: IncomingHttpHeaders; body: string }) {
  vi.useFakeTimers({ toFake: ['Date'], now: Number(delivery.headers['webhook-timestamp']) * 1000 });
  try {
    return new Webhook(secret).verify(delivery.body, delivery.headers as Record<string, string>);
  } finally {
    vi.useRealTimers();
  }
}

describe('the transaction’s answer (GET /v1/transactions/{provider}/{account}/{reference})', () => {
  it('includes its events’ delivery attempts per destination: status, time, latency and attempt number', async () => {
    // Prepare: a registered transaction whose success event was refused once, then delivered
    const config = parseConfig(JSON.parse(readFileSync('local/demo-config.json', 'utf8')));
    const store = new MemoryStore();
    const reference = randomUUID();
    await registerTransaction(
      { config, store, clock: { now: () => new Date(START) } },
      { provider: 'momo', account: 'demo', kind: 'requesttopay', reference, amount: '5', currency: 'EUR' },
    );
    const { handler, admin, now } = world({ retryScheduleSeconds: [0, 5] }, 'story-shop');
    const event = buildEvent(
      'TransactionSucceeded',
      `momo:demo:${reference}`,
      'SUCCEEDED',
      'callback',
      new Date(START).toISOString(),
      { provider: 'momo', account: 'demo', reference, status: 'SUCCEEDED' },
    );
    answers = [{ status: 500, body: 'busy' }];
    await handler({ Records: [record({ destination: 'story-shop', attempt: 0, event })] }, {} as never);
    now.ms += 5_000;
    await handler({ Records: [record(queued()[0]!, now.ms)] }, {} as never);

    // Act
    const answer = await getTransaction(
      { config, store, clock: { now: () => new Date(now.ms) }, deliveries: admin },
      { provider: 'momo', account: 'demo', reference },
    );

    // Assess
    expect(answer.deliveries).toEqual([
      expect.objectContaining({
        eventId: event.metadata.id,
        eventType: 'TransactionSucceeded',
        destination: 'story-shop',
      }),
    ]);
    expect(
      answer.deliveries[0]!.attempts.map((a) => [a.attempt, a.status, a.outcome, a.at, typeof a.latencyMs]),
    ).toEqual([
      [0, 500, 'retrying', new Date(START).toISOString(), 'number'],
      [1, 200, 'delivered', new Date(START + 5_000).toISOString(), 'number'],
    ]);
  });
});
