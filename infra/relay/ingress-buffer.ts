import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { scheduleFunction } from './schedule-role';
import { BUFFER_MAX_RECEIVE_COUNT, BUFFER_RETENTION_DAYS } from '../../shared/config/limits';
import { parseSecretRef } from '../../shared/config/secret-reader';
import { BUFFER_CONSUMER_TIMEOUT } from './limits';
import { secretArns } from './secrets';

export interface RelayIngressBuffer {
  /** Raw callbacks the callback function could not store in time (guarantee 1). */
  readonly queue: sqs.Queue;
  /** Buffered callbacks the consumer could not apply after `BUFFER_MAX_RECEIVE_COUNT` receives (≈ 3.5 days). */
  readonly dlq: sqs.Queue;
  /**
   * The HMAC key that seals every buffered message (Secrets Manager, generated); undefined when the
   * config names a secret member for it (`ingressBuffer.sealSecretId`).
   */
  readonly sealKey: secretsmanager.Secret | undefined;
  /** Starts the buffer consumer's drain every minute (EventBridge Scheduler). */
  readonly drainSchedule: scheduler.Schedule;
}

/** How often the buffer consumer drains the queue: a buffered callback waits at most this long (plus the drain). */
const BUFFER_DRAIN_INTERVAL = Duration.minutes(1);

/**
 * The ingress buffer: callbacks DynamoDB could not take in time → SQS → the buffer consumer, which
 * EventBridge Scheduler starts every minute to drain the queue (no event source mapping: its pollers
 * bill ~648,000 SQS requests a month on an empty queue; the drain asks once a minute). The
 * callback is acked once SQS has it (guarantee 1). The messages are the raw callbacks (redacted by the
 * provider module before they are written): encrypted with the table's customer-managed key when there
 * is one (they hold what the table holds), else SQS-managed. The buffer keeps a message 4 days (a
 * DynamoDB outage is hours; the alarm on its oldest message pages after 15 minutes); the consumer backs
 * off on storage errors (ChangeMessageVisibility growing with the receive count) and the receive count
 * is sized so a record reaches the DLQ after about 3.5 days of failures, never after a short outage
 * (shared/app/buffer/retry-backoff.ts). The DLQ keeps 14 days, counted from the original enqueue time,
 * so a redrive has at least 10 days. Both queues are retained when the stack is deleted (they may hold
 * acked callbacks no one else has), and a queue policy lets only the callback functions' role (and the
 * named redrivers) send to the buffer.
 */
export function createIngressBuffer(
  scope: Construct,
  fns: { callback: lambda.Function; consumer: lambda.Function; callbackSiblings?: lambda.Function[] },
  options: {
    /** Principals besides the callback role that may send (the DLQ redrive sends as the caller). */
    senderArns?: string[];
    tableEncryptionKey: kms.IKey | undefined;
    secretsEncryptionKey: kms.IKey | undefined;
    consumerMaxConcurrency: number;
    /** `ingressBuffer.sealSecretId` of the config: a secret (member) that holds the seal key. */
    sealSecretId?: string;
  },
): RelayIngressBuffer {
  const { tableEncryptionKey, secretsEncryptionKey } = options;
  const bufferEncryption = tableEncryptionKey
    ? { encryption: sqs.QueueEncryption.KMS, encryptionMasterKey: tableEncryptionKey }
    : { encryption: sqs.QueueEncryption.SQS_MANAGED };
  const dlq = new sqs.Queue(scope, 'IngressBufferDlq', {
    ...bufferEncryption,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
    removalPolicy: RemovalPolicy.RETAIN,
  });
  const queue = new sqs.Queue(scope, 'IngressBuffer', {
    ...bufferEncryption,
    enforceSSL: true,
    retentionPeriod: Duration.days(BUFFER_RETENTION_DAYS),
    // The visibility after a crash or a timeout; reported failures set their own (the backoff).
    visibilityTimeout: Duration.seconds(BUFFER_CONSUMER_TIMEOUT.toSeconds() * 6),
    deadLetterQueue: { queue: dlq, maxReceiveCount: BUFFER_MAX_RECEIVE_COUNT },
    removalPolicy: RemovalPolicy.RETAIN,
  });
  // Defence in depth beside the seal: no principal but the callback role (and the redrivers) may send.
  queue.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'OnlyTheCallbackRoleSends',
      effect: iam.Effect.DENY,
      principals: [new iam.AnyPrincipal()],
      actions: ['sqs:SendMessage'],
      resources: [queue.queueArn],
      conditions: {
        ArnNotEquals: { 'aws:PrincipalArn': [fns.callback.role!.roleArn, ...(options.senderArns ?? [])] },
      },
    }),
  );
  // The consumer applies a message as the callback function judged it (authenticated, verification
  // facts), so every message is sealed (HMAC) with a key readable by those functions: a principal
  // allowed to send to the queue cannot make up a callback (docs/ingress-buffer.md). A generated
  // secret of its own, or a member of a secret the config names (no $0.40 a month more).
  const sealKey = options.sealSecretId
    ? undefined
    : new secretsmanager.Secret(scope, 'IngressBufferSealKey', {
        description: 'Seals the ingress buffer messages of the mobile-money relay (HMAC key)',
        generateSecretString: { passwordLength: 64, excludePunctuation: true },
        encryptionKey: secretsEncryptionKey,
      });
  const sealRef = options.sealSecretId ?? sealKey!.secretArn;
  const sealResources = options.sealSecretId
    ? secretArns(Stack.of(scope), parseSecretRef(options.sealSecretId).secretId)
    : [sealKey!.secretArn];
  const callbacks = [fns.callback, ...(fns.callbackSiblings ?? [])];
  for (const fn of [...callbacks, fns.consumer]) {
    fn.addEnvironment('INGRESS_BUFFER_SEAL_SECRET_ID', sealRef);
    fn.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: sealResources }),
    );
    if (secretsEncryptionKey) secretsEncryptionKey.grantDecrypt(fn);
  }
  // The consumer needs the URL for its backoff (ChangeMessageVisibility, granted by the event source).
  for (const fn of [...callbacks, fns.consumer])
    fn.addEnvironment('INGRESS_BUFFER_QUEUE_URL', queue.queueUrl);
  // SendMessage only (grantSendMessages would add GetQueueAttributes and GetQueueUrl).
  fns.callback.addToRolePolicy(
    new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [queue.queueArn] }),
  );
  if (tableEncryptionKey) {
    const stack = Stack.of(scope);
    // Sending to a KMS-encrypted queue: a data key for the message (SQS calls KMS on the caller's behalf).
    fns.callback.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['kms:GenerateDataKey', 'kms:Decrypt'],
        resources: [tableEncryptionKey.keyArn],
        conditions: { StringEquals: { 'kms:ViaService': `sqs.${stack.region}.${stack.urlSuffix}` } },
      }),
    );
  }
  const drainSchedule = scheduleDrain(scope, queue, fns.consumer, options.consumerMaxConcurrency);
  return { queue, dlq, sealKey, drainSchedule };
}

/**
 * The buffer consumer drains the queue every minute (EventBridge Scheduler): it asks how many messages
 * wait and only then receives, applies and deletes them, `lanes` batches at once while a backlog lasts.
 */
function scheduleDrain(
  scope: Construct,
  queue: sqs.Queue,
  consumer: lambda.Function,
  lanes: number,
): scheduler.Schedule {
  // The drain receives, deletes and backs off itself (and asks how many wait: GetQueueAttributes).
  queue.grantConsumeMessages(consumer);
  consumer.addEnvironment('INGRESS_BUFFER_DRAIN_LANES', String(lanes));
  // A missed minute is the next minute's: no retry, no DLQ.
  consumer.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: BUFFER_DRAIN_INTERVAL });
  const { schedule: drainSchedule, role: scheduleRole } = scheduleFunction(scope, 'BufferDrainSchedule', {
    fn: consumer,
    rate: BUFFER_DRAIN_INTERVAL,
    description: 'Drains the ingress buffer of the mobile-money relay (callbacks stored later)',
    roleDescription: 'EventBridge Scheduler: starts the relay buffer consumer drain',
    target: { retryAttempts: 0, maxEventAge: BUFFER_DRAIN_INTERVAL },
  });
  NagSuppressions.addResourceSuppressions(
    scheduleRole,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'lambda:InvokeFunction is granted on the buffer consumer function and its qualified ARNs (<function ARN>:*, versions and aliases of this one function), as Function.grantInvoke does; no other function or action.',
        appliesTo: [{ regex: '/^Resource::<.*BufferConsumerFunction.*\\.Arn>:\\*$/g' }],
      },
    ],
    true,
  );
  return drainSchedule;
}
