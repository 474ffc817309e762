import {
  GetQueueUrlCommand,
  type MessageAttributeValue,
  SendMessageCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import type { PartnerQueueMessage, PartnerQueueSender, RoleCredentials } from '../../destinations/ports';

/** Clients kept at most: one per region, endpoint and role session in use; the oldest is dropped. */
const MAX_CLIENTS = 64;

interface ClientKey {
  region: string;
  endpoint?: string;
  credentials?: RoleCredentials;
}

/**
 * An emulator checks no credentials, and `npm start` must not need (or pick up) a developer's AWS profile
 * to reach one: the same placeholder the DynamoDB Local client signs with.
 */
const EMULATOR_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };

/**
 * Sends to SQS queues in partners' accounts (the sqs destination type, shared/destinations/sqs/): one
 * SQSClient per region, endpoint and assumed-role session (a renewed session gets a new client, the old
 * one is dropped), no SDK retries (the destination's schedule retries), the attempt's time-out as an
 * abort. Errors keep the SDK's name (AccessDenied, QueueDoesNotExist, throttling…): the type sorts them.
 *
 * Behind an emulator's `endpoint` (npm start) the queue is found by its name with GetQueueUrl, once per
 * endpoint: an emulator addresses its queues by its own URLs (its host, its account), never by the
 * partner's `https://sqs.<region>.amazonaws.com/<account>/<name>`.
 */
export function sqsPartnerQueues(
  options: { clientFor?: (key: ClientKey) => SQSClient } = {},
): PartnerQueueSender {
  const clients = new Map<string, SQSClient>();
  const clientFor =
    options.clientFor ??
    ((key: ClientKey) =>
      new SQSClient({
        region: key.region,
        ...(key.endpoint ? { endpoint: key.endpoint } : {}),
        ...(key.endpoint && !key.credentials ? { credentials: EMULATOR_CREDENTIALS } : {}),
        ...(key.credentials
          ? {
              credentials: {
                accessKeyId: key.credentials.accessKeyId,
                secretAccessKey: key.credentials.secretAccessKey,
                sessionToken: key.credentials.sessionToken,
                expiration: key.credentials.expiration,
              },
            }
          : {}),
        maxAttempts: 1,
      }));
  const client = (message: PartnerQueueMessage) => {
    const id = [message.region, message.endpoint ?? '', message.credentials?.accessKeyId ?? ''].join('\n');
    let found = clients.get(id);
    if (!found) {
      found = clientFor({
        region: message.region,
        ...(message.endpoint ? { endpoint: message.endpoint } : {}),
        ...(message.credentials ? { credentials: message.credentials } : {}),
      });
      clients.set(id, found);
      if (clients.size > MAX_CLIENTS) {
        const [oldest] = clients.keys();
        clients.get(oldest!)?.destroy();
        clients.delete(oldest!);
      }
    }
    return found;
  };
  const queueUrl = emulatorQueueUrls();
  return {
    async send(message) {
      const sqs = client(message);
      const attributes: Record<string, MessageAttributeValue> = Object.fromEntries(
        Object.entries(message.attributes).map(([name, value]) => [
          name,
          { DataType: 'String', StringValue: value },
        ]),
      );
      const answer = await sqs.send(
        new SendMessageCommand({
          QueueUrl: await queueUrl(message, sqs),
          MessageBody: message.body,
          MessageAttributes: attributes,
          ...(message.messageGroupId !== undefined ? { MessageGroupId: message.messageGroupId } : {}),
          ...(message.messageDeduplicationId !== undefined
            ? { MessageDeduplicationId: message.messageDeduplicationId }
            : {}),
        }),
        { abortSignal: AbortSignal.timeout(message.timeoutMs) },
      );
      return { messageId: answer.MessageId ?? '' };
    },
  };
}

/**
 * The queue's URL on an emulator, asked by name with GetQueueUrl once per endpoint, region and name; in AWS
 * (no endpoint) the partner's URL itself.
 */
function emulatorQueueUrls(): (message: PartnerQueueMessage, sqs: SQSClient) => Promise<string> {
  const found = new Map<string, Promise<string>>();
  return (message, sqs) => {
    if (!message.endpoint) return Promise.resolve(message.queueUrl);
    const name = message.queueUrl.slice(message.queueUrl.lastIndexOf('/') + 1);
    const id = `${message.endpoint}\n${message.region}\n${name}`;
    let url = found.get(id);
    if (!url) {
      url = sqs
        .send(new GetQueueUrlCommand({ QueueName: name }), {
          abortSignal: AbortSignal.timeout(message.timeoutMs),
        })
        .then((answer) => answer.QueueUrl ?? message.queueUrl);
      found.set(id, url);
      // Not kept when it failed: the queue may be created before the next attempt.
      url.catch(() => found.delete(id));
    }
    return url;
  };
}
