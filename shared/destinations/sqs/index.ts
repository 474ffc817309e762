import * as z from '../../util/zod';
import type { DeliveryAnswer } from '../ports';
import type { DestinationTypeModule } from '../types';
import { EXTERNAL_ID, parseQueue, ROLE_ARN } from './address';
import { RoleCredentialCache } from './role-credentials';

const sqsSettingsSchema = z.pipe(
  z.strictObject({
    /** The partner's queue, in their account: its URL or ARN. */
    queue: z.string().check(
      z.refine((value) => parseQueue(value) !== undefined, {
        message:
          'an SQS queue URL (https://sqs.<region>.amazonaws.com/<account>/<name>) or ARN (arn:aws:sqs:<region>:<account>:<name>)',
      }),
    ),
    /** The partner's role that may send to it, assumed with STS (its trust policy names the relay's account). */
    roleArn: z.string().check(z.regex(ROLE_ARN, 'an IAM role ARN: arn:aws:iam::<account>:role/<name>')),
    /** The partner's secret-less guard against the confused deputy: their trust policy's sts:ExternalId. */
    externalId: z.optional(
      z.string().check(z.regex(EXTERNAL_ID, '2 to 1,224 of A-Z a-z 0-9 + = , . @ : / - _')),
    ),
    /**
     * `npm start` only: an SQS emulator's URL (ElasticMQ, LocalStack). The role is not assumed there (an
     * emulator checks no credentials). Refused in AWS.
     */
    endpointUrl: z.optional(z.url({ protocol: /^https?$/ })),
  }),
  z.transform((settings) => ({ ...settings, address: parseQueue(settings.queue)! })),
);
export type SqsDestinationSettings = z.infer<typeof sqsSettingsSchema>;

/**
 * SQS error names that will not change by retrying: the partner's role or queue policy refuses the relay,
 * or the queue is gone. Like a 410 they disable the destination (an operator event and an alarm); every
 * other error (throttling, a time-out, a 5xx) is retried on the schedule.
 */
const PERMANENT_ERRORS = new Set([
  'AccessDenied',
  'AccessDeniedException',
  'AWS.SimpleQueueService.NonExistentQueue',
  'QueueDoesNotExist',
  'KmsAccessDenied',
  'KmsDisabled',
  'KmsNotFound',
  'KMS.AccessDeniedException',
]);

function answerOf(error: unknown, step: string): DeliveryAnswer {
  const name = error instanceof Error ? error.name : 'Error';
  const message = error instanceof Error ? error.message : String(error);
  const text = `${step}: ${name}: ${message}`;
  return PERMANENT_ERRORS.has(name)
    ? { kind: 'rejected', error: text, detail: `SQS ${step} refused: ${name}` }
    : { kind: 'failed', error: text };
}

/** An STS session name: the destination, within STS's 64 characters. */
const sessionName = (destination: string) => `relay-delivery-${destination}`.slice(0, 64);

/**
 * `type: "sqs"`: a queue in the partner's AWS account (docs/webhooks.md#sqs-destinations). The relay
 * assumes the partner's role (with their external id) and sends the normalized event as the message body,
 * the Standard Webhooks `webhook-id`, `webhook-timestamp` and `webhook-signature` as message attributes,
 * so the consumer dedupes and verifies as a webhook receiver does. A FIFO queue gets the transaction as
 * its message group (its events in order) and the event id as the deduplication id.
 */
export const sqsDestination: DestinationTypeModule<SqsDestinationSettings> = {
  id: 'sqs',
  settingsSchema: sqsSettingsSchema,
  problems(name, settings, { runtime, io }) {
    const problems: string[] = [];
    if (runtime === 'aws' && settings.endpointUrl !== undefined)
      problems.push(
        `destinations.${name}.endpointUrl: an emulator's URL, for npm start only; refused in AWS`,
      );
    if (runtime === 'local' && settings.endpointUrl === undefined)
      problems.push(
        `destinations.${name}: an sqs destination needs endpointUrl under npm start (no SQS runs here: point it at an SQS emulator, or deploy to deliver to ${settings.address.arn})`,
      );
    if (io && !io.queues) problems.push(`destinations.${name}: this process has no SQS sender`);
    if (io && runtime === 'aws' && !io.roles)
      problems.push(`destinations.${name}.roleArn: this process has no STS client to assume the role`);
    return problems;
  },
  shown: (settings) => settings.address.arn,
  assumedRoles: (settings) => [settings.roleArn],
  createDeliverer(io) {
    const credentials = io.roles ? new RoleCredentialCache(io.roles, io.now) : undefined;
    return {
      async deliver(request) {
        const { settings, runtime } = request;
        const queues = io.queues;
        if (!queues) return { kind: 'failed', error: 'not sent: no SQS sender in this process' };
        let session;
        if (runtime === 'aws') {
          if (!credentials) return { kind: 'failed', error: 'not sent: no STS client in this process' };
          try {
            session = await credentials.get({
              roleArn: settings.roleArn,
              ...(settings.externalId !== undefined ? { externalId: settings.externalId } : {}),
              sessionName: sessionName(request.destination),
            });
          } catch (error) {
            return answerOf(error, 'AssumeRole');
          }
        }
        try {
          const { messageId } = await queues.send({
            queueUrl: settings.address.url,
            region: settings.address.region,
            ...(session ? { credentials: session } : {}),
            ...(runtime === 'local' && settings.endpointUrl ? { endpoint: settings.endpointUrl } : {}),
            body: request.body,
            attributes: request.signature,
            timeoutMs: request.timeoutMs,
            ...(settings.address.fifo
              ? { messageGroupId: request.correlationId, messageDeduplicationId: request.eventId }
              : {}),
          });
          return { kind: 'accepted', excerpt: `SQS MessageId ${messageId}` };
        } catch (error) {
          return answerOf(error, 'SendMessage');
        }
      },
    };
  },
};
