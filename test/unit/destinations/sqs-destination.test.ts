import { randomBytes } from 'node:crypto';
import {
  QueueDoesNotExist,
  RequestThrottled,
  SendMessageCommand,
  type SendMessageCommandInput,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sqsPartnerQueues } from '../../../shared/adapters/sqs/partner-queue';
import { destinationSchema } from '../../../shared/config/schema';
import type { RoleAssumer, RoleCredentials } from '../../../shared/destinations/ports';
import { CREDENTIALS_RENEW_BEFORE_MS } from '../../../shared/destinations/sqs/role-credentials';
import { DrivenTime } from '../../helpers/driven-time';
import { succeededEvent as event, sqsDeliveries } from '../../helpers/sqs-deliveries';

const secret = `whsec_${randomBytes(32).toString('base64')}`;
const ROLE = 'arn:aws:iam::210987654321:role/relay-deliveries';
const QUEUE_URL = 'https://sqs.af-south-1.amazonaws.com/210987654321/momo-events';
const FIFO_ARN = 'arn:aws:sqs:af-south-1:210987654321:momo-events.fifo';

const sqs = mockClient(SQSClient);
// The mock patches the client class every later file of this worker shares: undo it.
afterAll(() => sqs.restore());

/** STS behind its port (its adapter is tested in test/unit/adapters/sts-role-assumer.test.ts): an hour's session per call, counted. */
class CountingAssumer implements RoleAssumer {
  readonly calls: Parameters<RoleAssumer['assumeRole']>[0][] = [];
  constructor(
    private readonly time: DrivenTime,
    private readonly failWith?: Error,
  ) {}
  async assumeRole(request: Parameters<RoleAssumer['assumeRole']>[0]): Promise<RoleCredentials> {
    this.calls.push(request);
    if (this.failWith) throw this.failWith;
    const n = this.calls.length;
    return {
      accessKeyId: `ASIAPARTNER${n}`,
      secretAccessKey: `partner-secret-${n}`,
      sessionToken: `partner-session-${n}`,
      expiration: new Date(this.time.now().getTime() + request.durationSeconds * 1000),
    };
  }
}

function setup(destination: Record<string, unknown> = {}, failAssume?: Error) {
  const time = new DrivenTime();
  const roles = new CountingAssumer(time, failAssume);
  const deliveries = sqsDeliveries({
    secret,
    time,
    runtime: 'aws',
    io: { queues: sqsPartnerQueues(), roles },
    destination: { queue: QUEUE_URL, roleArn: ROLE, externalId: 'relay-7f3a9c', ...destination },
  });
  return { ...deliveries, roles };
}

const sent = (): SendMessageCommandInput[] =>
  sqs.commandCalls(SendMessageCommand).map((c) => c.args[0].input);

describe('sqs destination: a queue in the partner account, by role', () => {
  beforeEach(() => {
    sqs.reset();
    sqs.on(SendMessageCommand).resolves({ MessageId: 'm-1' });
  });
  afterEach(() => sqs.reset());

  it('sends the normalized event as the body with Standard Webhooks attributes the reference library verifies', async () => {
    // Prepare
    const { engine, log } = setup();
    const published = event('ref-1');

    // Act
    await engine.submit(published);
    await engine.settled();

    // Assess
    const [input] = sent();
    expect(input!.QueueUrl).toBe(QUEUE_URL);
    expect(JSON.parse(input!.MessageBody!)).toEqual(published);
    const headers = Object.fromEntries(
      Object.entries(input!.MessageAttributes!).map(([name, value]) => [name, value.StringValue!]),
    );
    expect(Object.keys(headers).sort()).toEqual(['webhook-id', 'webhook-signature', 'webhook-timestamp']);
    expect(input!.MessageAttributes!['webhook-id']).toEqual({
      DataType: 'String',
      StringValue: published.metadata.id,
    });
    // The consumer verifies the message as a webhook receiver verifies a request (the specification's library).
    expect(new Webhook(secret).verify(input!.MessageBody!, headers)).toEqual(published);
    expect(input!.MessageGroupId).toBeUndefined();
    expect(input!.MessageDeduplicationId).toBeUndefined();
    const [attempt] = await log.attempts({ correlationId: published.metadata.correlationId });
    expect(attempt).toMatchObject({ outcome: 'delivered', status: null, excerpt: 'SQS MessageId m-1' });
  });

  it('sends with the assumed role session in the queue region, asked with the external id', async () => {
    // Prepare
    const { engine, roles } = setup();

    // Act
    await engine.submit(event('ref-1'));
    await engine.settled();

    // Assess
    expect(roles.calls).toEqual([
      {
        roleArn: ROLE,
        externalId: 'relay-7f3a9c',
        sessionName: 'relay-delivery-partner',
        durationSeconds: 3600,
      },
    ]);
    const client = sqs.commandCalls(SendMessageCommand)[0]!.thisValue as SQSClient;
    expect(await client.config.region()).toBe('af-south-1');
    expect(await client.config.credentials()).toMatchObject({
      accessKeyId: 'ASIAPARTNER1',
      sessionToken: 'partner-session-1',
    });
  });

  it('gives a FIFO queue the transaction as message group and the event id as deduplication id', async () => {
    // Prepare
    const { engine } = setup({ queue: FIFO_ARN });
    const published = event('ref-fifo');

    // Act
    await engine.submit(published);
    await engine.settled();

    // Assess
    const [input] = sent();
    expect(input!.QueueUrl).toBe('https://sqs.af-south-1.amazonaws.com/210987654321/momo-events.fifo');
    expect(input!.MessageGroupId).toBe('momo:acct:ref-fifo');
    expect(input!.MessageDeduplicationId).toBe(published.metadata.id);
  });

  it('retries a throttled send on the schedule with the same webhook-id, without disabling the destination', async () => {
    // Prepare
    sqs
      .on(SendMessageCommand)
      .rejectsOnce(new RequestThrottled({ message: 'Request is throttled.', $metadata: {} }))
      .resolves({ MessageId: 'm-2' });
    const { engine, time, log, states, disabled } = setup({ retryScheduleSeconds: [0, 5] });
    const published = event('ref-throttled');

    // Act
    await engine.submit(published);
    await engine.settled();
    time.advance(5000);
    await engine.settled();

    // Assess
    const ids = sent().map((input) => input.MessageAttributes!['webhook-id']!.StringValue);
    expect(ids).toEqual([published.metadata.id, published.metadata.id]);
    const attempts = await log.attempts({ correlationId: published.metadata.correlationId });
    expect(attempts.map((a) => a.outcome)).toEqual(['retrying', 'delivered']);
    expect(attempts[0]!.excerpt).toContain('RequestThrottled');
    expect(disabled).toEqual([]);
    expect((await states.get('partner')).disabled).toBe(false);
  });

  it('disables the destination at once when the queue does not exist (a permanent refusal)', async () => {
    // Prepare
    sqs
      .on(SendMessageCommand)
      .rejects(new QueueDoesNotExist({ message: 'The specified queue does not exist.', $metadata: {} }));
    const { engine, log, states, disabled } = setup();
    const published = event('ref-gone');

    // Act
    await engine.submit(published);
    await engine.settled();

    // Assess
    expect(disabled).toEqual(['SQS SendMessage refused: QueueDoesNotExist']);
    expect((await states.get('partner')).disabled).toBe(true);
    const attempts = await log.attempts({ correlationId: published.metadata.correlationId });
    expect(attempts.map((a) => a.outcome)).toEqual(['destination-disabled']);
  });

  it('disables the destination when the partner role refuses to be assumed (trust policy or external id)', async () => {
    // Prepare
    const refused = Object.assign(new Error('User is not authorized to perform: sts:AssumeRole'), {
      name: 'AccessDenied',
    });
    const { engine, disabled } = setup({}, refused);

    // Act
    await engine.submit(event('ref-denied'));
    await engine.settled();

    // Assess
    expect(disabled).toEqual(['SQS AssumeRole refused: AccessDenied']);
    expect(sent()).toEqual([]);
  });

  it('assumes the role once while its session lasts and again shortly before it expires', async () => {
    // Prepare
    const { engine, time, roles } = setup();

    // Act
    await engine.submit(event('ref-a'));
    await engine.settled();
    time.advance(3600_000 - CREDENTIALS_RENEW_BEFORE_MS - 1000);
    await engine.submit(event('ref-b'));
    await engine.settled();
    time.advance(2000);
    await engine.submit(event('ref-c'));
    await engine.settled();

    // Assess
    expect(roles.calls).toHaveLength(2);
    const keys = await Promise.all(
      sqs
        .commandCalls(SendMessageCommand)
        .map(async (call) => (await (call.thisValue as SQSClient).config.credentials()).accessKeyId),
    );
    expect(keys).toEqual(['ASIAPARTNER1', 'ASIAPARTNER1', 'ASIAPARTNER2']);
  });
});

describe('sqs destination config', () => {
  const parse = (fields: Record<string, unknown>) =>
    destinationSchema.safeParse({ type: 'sqs', signingSecrets: [secret], ...fields });
  const messages = (fields: Record<string, unknown>) => {
    const result = parse(fields);
    return result.success ? [] : result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
  };

  it('accepts a queue by URL or ARN and keeps both forms', () => {
    const byUrl = parse({ queue: QUEUE_URL, roleArn: ROLE });
    const byArn = parse({ queue: 'arn:aws:sqs:af-south-1:210987654321:momo-events', roleArn: ROLE });
    expect(byUrl.success && byUrl.data.settings).toMatchObject({
      address: { url: QUEUE_URL, arn: 'arn:aws:sqs:af-south-1:210987654321:momo-events', fifo: false },
    });
    if (!byUrl.success || !byArn.success) throw new Error('both forms are accepted');
    expect(byArn.data.settings).toEqual({
      ...(byUrl.data.settings as object),
      queue: 'arn:aws:sqs:af-south-1:210987654321:momo-events',
    });
  });

  it('names the field of a queue, role or external id in the wrong form', () => {
    expect(messages({ queue: 'https://example.com/queue', roleArn: ROLE })).toEqual([
      expect.stringMatching(/^queue: an SQS queue URL/),
    ]);
    expect(messages({ queue: QUEUE_URL, roleArn: 'arn:aws:iam::210987654321:user/relay' })).toEqual([
      expect.stringMatching(/^roleArn: an IAM role ARN/),
    ]);
    expect(messages({ queue: QUEUE_URL, roleArn: ROLE, externalId: 'x' })).toEqual([
      expect.stringMatching(/^externalId: 2 to 1,224/),
    ]);
    expect(messages({ queue: QUEUE_URL, roleArn: ROLE, url: 'https://shop.example.com' })).toEqual([
      expect.stringMatching(/url/),
    ]);
  });

  it('is refused at npm start without an emulator endpoint, naming the destination', () => {
    const start = (destination: Record<string, unknown>) =>
      sqsDeliveries({
        secret,
        runtime: 'local',
        io: { queues: sqsPartnerQueues() },
        destination: { queue: QUEUE_URL, roleArn: ROLE, ...destination },
      });

    expect(() => start({})).toThrow(
      /destinations\.partner: an sqs destination needs endpointUrl under npm start/,
    );
    expect(() => start({ endpointUrl: 'http://127.0.0.1:9324' })).not.toThrow();
  });
});
