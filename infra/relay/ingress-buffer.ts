import { Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { BUFFER_MAX_RECEIVE_COUNT, BUFFER_RETENTION_DAYS } from '../../shared/config/limits';
import { BUFFER_CONSUMER_TIMEOUT } from './limits';

export interface RelayIngressBuffer {
  /** Raw callbacks the callback function could not store in time (guarantee 1). */
  readonly queue: sqs.Queue;
  /** Buffered callbacks the consumer could not apply after `BUFFER_MAX_RECEIVE_COUNT` receives (≈ 3.5 days). */
  readonly dlq: sqs.Queue;
  /** The HMAC key that seals every buffered message (Secrets Manager, generated). */
  readonly sealKey: secretsmanager.Secret;
}

/**
 * The ingress buffer: callbacks DynamoDB could not take in time → SQS → the buffer consumer. The
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
  // facts), so every message is sealed (HMAC) with this key, readable by those two functions only: a
  // principal allowed to send to the queue cannot make up a callback (docs/ingress-buffer.md).
  const sealKey = new secretsmanager.Secret(scope, 'IngressBufferSealKey', {
    description: 'Seals the ingress buffer messages of the mobile-money relay (HMAC key)',
    generateSecretString: { passwordLength: 64, excludePunctuation: true },
    encryptionKey: secretsEncryptionKey,
  });
  const callbacks = [fns.callback, ...(fns.callbackSiblings ?? [])];
  for (const fn of [...callbacks, fns.consumer]) {
    fn.addEnvironment('INGRESS_BUFFER_SEAL_SECRET_ID', sealKey.secretArn);
    fn.addToRolePolicy(
      new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [sealKey.secretArn] }),
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
  fns.consumer.addEventSource(
    new SqsEventSource(queue, {
      batchSize: 10,
      reportBatchItemFailures: true,
      // A recovering table is not stampeded by the backlog.
      maxConcurrency: options.consumerMaxConcurrency,
    }),
  );
  return { queue, dlq, sealKey };
}
