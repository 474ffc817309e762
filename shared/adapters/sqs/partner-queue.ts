import { type MessageAttributeValue, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { PartnerQueueMessage, PartnerQueueSender, RoleCredentials } from '../../destinations/ports';

/** Clients kept at most: one per region, endpoint and role session in use; the oldest is dropped. */
const MAX_CLIENTS = 64;

interface ClientKey {
  region: string;
  endpoint?: string;
  credentials?: RoleCredentials;
}

/**
 * Sends to SQS queues in partners' accounts (the sqs destination type, shared/destinations/sqs/): one
 * SQSClient per region, endpoint and assumed-role session (a renewed session gets a new client, the old
 * one is dropped), no SDK retries (the destination's schedule retries), the attempt's time-out as an
 * abort. Errors keep the SDK's name (AccessDenied, QueueDoesNotExist, throttling…): the type sorts them.
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
  return {
    async send(message) {
      const attributes: Record<string, MessageAttributeValue> = Object.fromEntries(
        Object.entries(message.attributes).map(([name, value]) => [
          name,
          { DataType: 'String', StringValue: value },
        ]),
      );
      const answer = await client(message).send(
        new SendMessageCommand({
          QueueUrl: message.queueUrl,
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
