import { randomBytes } from 'node:crypto';
import { GetQueueUrlCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { STSClient } from '@aws-sdk/client-sts';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sqsPartnerQueues } from '../../shared/adapters/sqs/partner-queue';
import { stsRoleAssumer } from '../../shared/adapters/sqs/partner-role';
import { LocalAwsEndpoint } from '../helpers/delivery-sqs-endpoint';
import { succeededEvent as event, sqsDeliveries } from '../helpers/sqs-deliveries';

/**
 * An sqs destination delivering through the real @aws-sdk/client-sqs and @aws-sdk/client-sts over HTTP:
 * to a local endpoint that checks SigV4, answers the SQS JSON protocol and STS AssumeRole, and can
 * throttle or refuse (test/helpers/delivery-sqs-endpoint.ts), and, when the `fauxqs` emulator from the
 * npm registry is installed, to it (docs/webhooks.md#sqs-destinations).
 */

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const ROLE = 'arn:aws:iam::210987654321:role/relay-deliveries';
const EXTERNAL_ID = 'relay-7f3a9c';
const QUEUE = 'https://sqs.af-south-1.amazonaws.com/210987654321/momo-events';
const FIFO_QUEUE = 'arn:aws:sqs:af-south-1:210987654321:momo-events.fifo';
/** The relay's own key (the delivery function's role in AWS), known to the endpoint's STS. */
const RELAY_KEY = { accessKeyId: 'AKIARELAYFUNCTION', secretAccessKey: randomBytes(20).toString('hex') };
/** What the adapter signs with behind an emulator (no AWS profile needed under npm start). */
const EMULATOR_KEY = { accessKeyId: 'local', secretAccessKey: 'local' };

/**
 * fauxqs, an in-process SNS/SQS emulator from the npm registry (1.9.2: the last release for Node 20), is not
 * a dependency yet: `npm install --save-dev --save-exact fauxqs@1.9.2`. Without it its block is skipped,
 * and says so; the name is a variable so type-checking does not need the package.
 */
const FAUXQS: string = 'fauxqs';
interface Fauxqs {
  startFauxqs(options: { port: number; logger: boolean }): Promise<{
    address: string;
    stop(): Promise<void>;
    createQueue(name: string, options: { region: string; attributes?: Record<string, string> }): unknown;
  }>;
}
const fauxqs = (await import(/* @vite-ignore */ FAUXQS).catch(() => undefined)) as Fauxqs | undefined;

/** The partner destination under test: the relay's role in the partner account, the shared signing secret. */
const deliveries = (options: Omit<Parameters<typeof sqsDeliveries>[0], 'secret'>) =>
  sqsDeliveries({ secret, ...options, destination: { roleArn: ROLE, ...options.destination } });

const headersOf = (attributes: Record<string, { StringValue?: string }>) =>
  Object.fromEntries(Object.entries(attributes).map(([name, value]) => [name, value.StringValue ?? '']));

describe('sqs destination under npm start, through the real SQS client to a local endpoint', () => {
  let endpoint: LocalAwsEndpoint;
  beforeAll(async () => {
    endpoint = await new LocalAwsEndpoint('emulator')
      .acceptCredentials(EMULATOR_KEY)
      .createQueue('momo-events')
      .createQueue('momo-events.fifo')
      .start();
  });
  afterAll(() => endpoint?.stop());
  afterEach(() => {
    endpoint.messages.length = 0;
  });
  const local = (destination: Record<string, unknown> = {}) =>
    deliveries({
      runtime: 'local',
      io: { queues: sqsPartnerQueues() },
      destination: { queue: QUEUE, endpointUrl: endpoint.url, ...destination },
    });

  it('puts the event on the queue, signed for the queue region, with webhook attributes the reference library verifies', async () => {
    // Prepare
    const { deliver } = local();
    const published = event('sqs-wire-1');

    // Act
    const attempts = await deliver(published);

    // Assess: the attempt first, so a failure shows what the relay logged (a time-out, a refused
    // signature, a connection reset) rather than only an empty queue.
    expect(attempts.map((a) => [a.outcome, a.excerpt])).toEqual([
      ['delivered', expect.stringMatching(/^SQS MessageId /)],
    ]);
    expect(endpoint.messages).toHaveLength(1);
    const [message] = endpoint.messages;
    expect(message!.queue).toBe('momo-events');
    expect(message!.signedBy).toEqual({ accessKeyId: 'local', region: 'af-south-1', service: 'sqs' });
    expect(JSON.parse(message!.body)).toEqual(published);
    expect(message!.attributes['webhook-id']).toEqual({
      DataType: 'String',
      StringValue: published.metadata.id,
    });
    expect(new Webhook(secret).verify(message!.body, headersOf(message!.attributes))).toEqual(published);
    expect(attempts.map((a) => [a.outcome, a.status, a.excerpt])).toEqual([
      ['delivered', null, `SQS MessageId ${message!.messageId}`],
    ]);
    expect(endpoint.refusedSignatures).toEqual([]);
  });

  it('gives a FIFO queue the transaction as message group and the event id as deduplication id', async () => {
    // Prepare
    const { deliver } = local({ queue: FIFO_QUEUE });
    const published = event('sqs-wire-fifo');

    // Act
    await deliver(published);

    // Assess
    expect(endpoint.messages.map((m) => [m.queue, m.messageGroupId, m.messageDeduplicationId])).toEqual([
      ['momo-events.fifo', published.metadata.correlationId, published.metadata.id],
    ]);
  });

  it('retries a throttled send on the schedule with the same webhook-id and keeps the destination enabled', async () => {
    // Prepare
    endpoint.failNextSends('throttled');
    const { deliver, time, engine, log, states, disabled } = local({ retryScheduleSeconds: [0, 5] });
    const published = event('sqs-wire-throttled');

    // Act
    await deliver(published);
    time.advance(5000);
    await engine.settled();

    // Assess
    const attempts = await log.attempts({ correlationId: published.metadata.correlationId });
    expect(attempts.map((a) => a.outcome)).toEqual(['retrying', 'delivered']);
    expect(attempts[0]!.excerpt).toMatch(/SendMessage: RequestThrottled/);
    const arrived = endpoint.messages.map((m) => m.attributes['webhook-id']?.StringValue);
    expect(arrived).toEqual([published.metadata.id]);
    expect(disabled).toEqual([]);
    expect((await states.get('partner')).disabled).toBe(false);
  });

  it('disables the destination with an operator reason when SQS refuses access', async () => {
    // Prepare
    endpoint.failNextSends('access-denied');
    const { deliver, disabled, states } = local();

    // Act
    const attempts = await deliver(event('sqs-wire-denied'));

    // Assess
    expect(attempts.map((a) => a.outcome)).toEqual(['destination-disabled']);
    expect(attempts[0]!.excerpt).toMatch(/SendMessage: AccessDenied/);
    expect(disabled).toEqual(['SQS SendMessage refused: AccessDenied']);
    expect((await states.get('partner')).disabled).toBe(true);
    expect(endpoint.messages).toEqual([]);
  });

  it('disables the destination when the queue does not exist on the endpoint', async () => {
    // Prepare
    const { deliver, disabled } = local({ queue: 'arn:aws:sqs:af-south-1:210987654321:no-such-queue' });

    // Act
    const attempts = await deliver(event('sqs-wire-gone'));

    // Assess
    expect(attempts.map((a) => a.outcome)).toEqual(['destination-disabled']);
    expect(disabled).toEqual(['SQS SendMessage refused: QueueDoesNotExist']);
  });
});

describe('sqs destination in AWS, through the real STS and SQS clients to a local endpoint', () => {
  let endpoint: LocalAwsEndpoint;
  beforeAll(async () => {
    endpoint = await new LocalAwsEndpoint('aws')
      .acceptCredentials(RELAY_KEY)
      .trustRole({ roleArn: ROLE, externalId: EXTERNAL_ID })
      .createQueue('momo-events')
      .start();
  });
  afterAll(() => endpoint?.stop());
  // In AWS the clients find STS and the queue by region: here both are pointed at the endpoint, and the
  // SQS client is built from the key the adapter chooses (the assumed session), exactly as in AWS.
  const inAws = (destination: Record<string, unknown>) =>
    deliveries({
      runtime: 'aws',
      io: {
        roles: stsRoleAssumer(
          new STSClient({
            region: 'af-south-1',
            endpoint: endpoint.url,
            credentials: RELAY_KEY,
            maxAttempts: 1,
          }),
        ),
        queues: sqsPartnerQueues({
          clientFor: (key) =>
            new SQSClient({
              region: key.region,
              endpoint: endpoint.url,
              ...(key.credentials ? { credentials: key.credentials } : {}),
              maxAttempts: 1,
            }),
        }),
      },
      destination: { queue: QUEUE, ...destination },
    });

  it('assumes the partner role with the external id and sends with that session, not the relay key', async () => {
    // Prepare
    const { deliver } = inAws({ externalId: EXTERNAL_ID });
    const published = event('sqs-aws-1');

    // Act
    const attempts = await deliver(published);

    // Assess
    expect(attempts.map((a) => a.outcome)).toEqual(['delivered']);
    expect(endpoint.assumeRoleCalls).toEqual([
      {
        roleArn: ROLE,
        externalId: EXTERNAL_ID,
        sessionName: 'relay-delivery-partner',
        by: RELAY_KEY.accessKeyId,
      },
    ]);
    const [message] = endpoint.messages;
    expect(message!.signedBy).toMatchObject({
      accessKeyId: 'ASIALOCALSESSION1',
      region: 'af-south-1',
      service: 'sqs',
      sessionToken: expect.stringMatching(/^session-token-1-/),
    });
    expect(new Webhook(secret).verify(message!.body, headersOf(message!.attributes))).toEqual(published);
  });

  it('disables the destination when STS refuses the role (a wrong external id), sending nothing', async () => {
    // Prepare
    const sent = endpoint.messages.length;
    const { deliver, disabled } = inAws({ externalId: 'not-the-partners-id' });

    // Act
    const attempts = await deliver(event('sqs-aws-denied'));

    // Assess
    expect(attempts.map((a) => a.outcome)).toEqual(['destination-disabled']);
    expect(disabled).toEqual(['SQS AssumeRole refused: AccessDenied']);
    expect(endpoint.messages).toHaveLength(sent);
  });
});

describe.skipIf(!fauxqs)(
  `sqs destination under npm start, to the fauxqs emulator${fauxqs ? '' : ' (skipped: fauxqs is not installed; npm install --save-dev --save-exact fauxqs@1.9.2)'}`,
  () => {
    let emulator: Awaited<ReturnType<Fauxqs['startFauxqs']>>;
    let reader: SQSClient;
    beforeAll(async () => {
      emulator = await fauxqs!.startFauxqs({ port: 0, logger: false });
      emulator.createQueue('momo-events', { region: 'af-south-1' });
      emulator.createQueue('momo-events.fifo', { region: 'af-south-1', attributes: { FifoQueue: 'true' } });
      reader = new SQSClient({ region: 'af-south-1', endpoint: emulator.address, credentials: EMULATOR_KEY });
    });
    afterAll(async () => {
      reader?.destroy();
      await emulator?.stop();
    });
    const onEmulator = (destination: Record<string, unknown>) =>
      deliveries({
        runtime: 'local',
        io: { queues: sqsPartnerQueues() },
        destination: { endpointUrl: emulator.address, ...destination },
      });
    /** Everything on the emulator's queue now, read with the real client (which checks each body's MD5). */
    const receive = async (name: string) => {
      const { QueueUrl } = await reader.send(new GetQueueUrlCommand({ QueueName: name }));
      const answer = await reader.send(
        new ReceiveMessageCommand({
          QueueUrl,
          MaxNumberOfMessages: 10,
          MessageAttributeNames: ['All'],
        }),
      );
      return answer.Messages ?? [];
    };

    it('finds the partner queue by name on the emulator and puts the event there, verifiable by the reference library', async () => {
      // Prepare
      const { deliver } = onEmulator({ queue: QUEUE });
      const published = event('fauxqs-1');

      // Act
      const attempts = await deliver(published);

      // Assess
      expect(attempts.map((a) => a.outcome)).toEqual(['delivered']);
      const [message] = await receive('momo-events');
      expect(JSON.parse(message!.Body!)).toEqual(published);
      expect(new Webhook(secret).verify(message!.Body!, headersOf(message!.MessageAttributes!))).toEqual(
        published,
      );
    });

    it('lets a FIFO queue drop a replayed duplicate by the event id', async () => {
      // Prepare
      const { deliver, engine } = onEmulator({ queue: FIFO_QUEUE });
      const published = event('fauxqs-fifo');
      await deliver(published);

      // Act
      await engine.replay(
        'partner',
        { correlationId: published.metadata.correlationId },
        {
          dryRun: false,
          actor: 'ops@example.com',
        },
      );
      await engine.settled();

      // Assess
      const messages = await receive('momo-events.fifo');
      expect(messages.map((m) => m.MessageAttributes!['webhook-id']!.StringValue)).toEqual([
        published.metadata.id,
      ]);
    });

    it('disables the destination when the emulator has no such queue', async () => {
      // Prepare
      const { deliver, disabled } = onEmulator({
        queue: 'arn:aws:sqs:af-south-1:210987654321:no-such-queue',
      });

      // Act
      const attempts = await deliver(event('fauxqs-gone'));

      // Assess
      expect(attempts.map((a) => a.outcome)).toEqual(['destination-disabled']);
      expect(disabled).toEqual(['SQS SendMessage refused: QueueDoesNotExist']);
    });
  },
);
