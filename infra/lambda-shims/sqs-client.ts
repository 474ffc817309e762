/**
 * Bundled in place of `@aws-sdk/client-sqs` in the buffer consumer, the management API and the delivery
 * function (esbuild alias, infra/bundling.ts FUNCTION_ALIASES): the callback's slim client
 * (sqs-send-message.ts: the client, SendMessage, the base exception) with the other commands these three
 * send, and nothing more. The generated client costs each of them ~23 KB, most of it the error classes
 * and schemas of every SQS operation. What they send:
 * - the buffer consumer: GetQueueAttributes, ReceiveMessage, DeleteMessageBatch
 *   (shared/adapters/sqs/sqs-buffer-queue.ts) and ChangeMessageVisibilityBatch (sqs-retry-later.ts);
 * - the management API: ListDeadLetterSourceQueues, ListQueueTags, SendMessage and ChangeMessageVisibility
 *   (sqs-delivery-queue.ts, its replays);
 * - the delivery function: SendMessage and ChangeMessageVisibility (sqs-delivery-queue.ts), and SendMessage
 *   and GetQueueUrl to a partner's queue (partner-queue.ts).
 * No code tells an SQS error class apart (`instanceof`): the adapters read an error's name (the delivery
 * function's sqs destination, shared/destinations/sqs/index.ts, by the codes it lists), so the error
 * registry holds the base exception alone, as the callback's does, and every error comes back as
 * SQSServiceException named by its code. The schemas below are the package's own
 * (dist-es/schemas/schemas_0.js), copied; test/unit/infra/slim-clients.test.ts compares them with the
 * package's and sends each command through both clients. Should one of these functions send another SQS
 * command, export it here (the bundle fails to build until then).
 */
// @ts-expect-error -- the packages' ESM files have no declarations beside them (they live in dist-types)
import { getLongPollPlugin } from '../../node_modules/@aws-sdk/core/dist-es/submodules/client/index.js';
// @ts-expect-error -- as above
import { getReceiveMessagePlugin } from '../../node_modules/@aws-sdk/middleware-sdk-sqs/dist-es/index.js';
import { command, member, MessageBodyAttributeMap, n0 } from './sqs-send-message';

export { SendMessageCommand, SQSClient, SQSServiceException } from './sqs-send-message';

// The schemas, from the package's dist-es/schemas/schemas_0.js (same shapes, same traits).
const nameValueMap = (name: string, key: string) => [
  2,
  n0,
  name,
  0,
  [0, { xmlName: key }],
  [0, { xmlName: 'Value' }],
];
const operation = (name: string, input: unknown, output: unknown) => [
  9,
  n0,
  name,
  0,
  () => input,
  () => output,
];
const unit = 'unit';

const AttributeNames = [64, member('AttributeName')];
const MessageSystemAttributeMap = nameValueMap('MessageSystemAttributeMap', 'Name');
const Message$ = [
  3,
  n0,
  'Message',
  0,
  [
    'MessageId',
    'ReceiptHandle',
    'MD5OfBody',
    'Body',
    'Attributes',
    'MD5OfMessageAttributes',
    'MessageAttributes',
  ],
  [
    0,
    0,
    0,
    0,
    [() => MessageSystemAttributeMap, member('Attribute')],
    0,
    [() => MessageBodyAttributeMap, member('MessageAttribute')],
  ],
];
const MessageList = [1, n0, 'MessageList', 0, [() => Message$, 0]];
const ReceiveMessage$ = operation(
  'ReceiveMessage',
  [
    3,
    n0,
    'ReceiveMessageRequest',
    0,
    [
      'QueueUrl',
      'AttributeNames',
      'MessageSystemAttributeNames',
      'MessageAttributeNames',
      'MaxNumberOfMessages',
      'VisibilityTimeout',
      'WaitTimeSeconds',
      'ReceiveRequestAttemptId',
    ],
    [0, AttributeNames, AttributeNames, [64, member('MessageAttributeName')], 1, 1, 1, 0],
    1,
  ],
  [3, n0, 'ReceiveMessageResult', 0, ['Messages'], [[() => MessageList, member('Message')]]],
);

const BatchResultErrorEntry$ = [
  3,
  n0,
  'BatchResultErrorEntry',
  0,
  ['Id', 'SenderFault', 'Code', 'Message'],
  [0, 2, 0, 0],
  3,
];
const BatchResultErrorEntryList = [1, n0, 'BatchResultErrorEntryList', 0, () => BatchResultErrorEntry$];
/** A batch command's schema (DeleteMessageBatch, ChangeMessageVisibilityBatch): entries in, results out. */
function batch(name: string, entryMembers: string[], entryTypes: number[]) {
  const entry = [3, n0, `${name}RequestEntry`, 0, entryMembers, entryTypes, 2];
  const entries = [1, n0, `${name}RequestEntryList`, 0, () => entry];
  const result = [3, n0, `${name}ResultEntry`, 0, ['Id'], [0], 1];
  const results = [1, n0, `${name}ResultEntryList`, 0, () => result];
  return operation(
    name,
    [
      3,
      n0,
      `${name}Request`,
      0,
      ['QueueUrl', 'Entries'],
      [0, [() => entries, member(`${name}RequestEntry`)]],
      2,
    ],
    [
      3,
      n0,
      `${name}Result`,
      0,
      ['Successful', 'Failed'],
      [
        [() => results, member(`${name}ResultEntry`)],
        [() => BatchResultErrorEntryList, member('BatchResultErrorEntry')],
      ],
      2,
    ],
  );
}
const DeleteMessageBatch$ = batch('DeleteMessageBatch', ['Id', 'ReceiptHandle'], [0, 0]);
const ChangeMessageVisibilityBatch$ = batch(
  'ChangeMessageVisibilityBatch',
  ['Id', 'ReceiptHandle', 'VisibilityTimeout'],
  [0, 0, 1],
);

const QueueAttributeMap = nameValueMap('QueueAttributeMap', 'Name');
const GetQueueAttributes$ = operation(
  'GetQueueAttributes',
  [3, n0, 'GetQueueAttributesRequest', 0, ['QueueUrl', 'AttributeNames'], [0, AttributeNames], 1],
  [3, n0, 'GetQueueAttributesResult', 0, ['Attributes'], [[() => QueueAttributeMap, member('Attribute')]]],
);
const ChangeMessageVisibility$ = operation(
  'ChangeMessageVisibility',
  [
    3,
    n0,
    'ChangeMessageVisibilityRequest',
    0,
    ['QueueUrl', 'ReceiptHandle', 'VisibilityTimeout'],
    [0, 0, 1],
    3,
  ],
  unit,
);
const ListDeadLetterSourceQueues$ = operation(
  'ListDeadLetterSourceQueues',
  [3, n0, 'ListDeadLetterSourceQueuesRequest', 0, ['QueueUrl', 'NextToken', 'MaxResults'], [0, 0, 1], 1],
  [
    3,
    n0,
    'ListDeadLetterSourceQueuesResult',
    0,
    ['queueUrls', 'NextToken'],
    [[64, member('QueueUrl')], 0],
    1,
  ],
);
const TagMap = nameValueMap('TagMap', 'Key');
const ListQueueTags$ = operation(
  'ListQueueTags',
  [3, n0, 'ListQueueTagsRequest', 0, ['QueueUrl'], [0], 1],
  [3, n0, 'ListQueueTagsResult', 0, ['Tags'], [[() => TagMap, member('Tag')]]],
);
const GetQueueUrl$ = operation(
  'GetQueueUrl',
  [3, n0, 'GetQueueUrlRequest', 0, ['QueueName', 'QueueOwnerAWSAccountId'], [0, 0], 1],
  [3, n0, 'GetQueueUrlResult', 0, ['QueueUrl'], [0]],
);

/** The schemas copied above, by name (test/unit/infra/slim-clients.test.ts compares them with the package's). */
export const COPIED_SCHEMAS: Record<string, unknown> = {
  ReceiveMessage$,
  DeleteMessageBatch$,
  ChangeMessageVisibilityBatch$,
  GetQueueAttributes$,
  ChangeMessageVisibility$,
  ListDeadLetterSourceQueues$,
  ListQueueTags$,
  GetQueueUrl$,
};

const noPlugins = () => [];

export class ReceiveMessageCommand extends command(
  {},
  (_command: unknown, _stack: unknown, config: unknown) => [
    getReceiveMessagePlugin(config),
    getLongPollPlugin(config),
  ],
  'ReceiveMessage',
  ReceiveMessage$,
) {}
export class DeleteMessageBatchCommand extends command(
  {},
  noPlugins,
  'DeleteMessageBatch',
  DeleteMessageBatch$,
) {}
export class ChangeMessageVisibilityBatchCommand extends command(
  {},
  noPlugins,
  'ChangeMessageVisibilityBatch',
  ChangeMessageVisibilityBatch$,
) {}
export class GetQueueAttributesCommand extends command(
  {},
  noPlugins,
  'GetQueueAttributes',
  GetQueueAttributes$,
) {}
export class ChangeMessageVisibilityCommand extends command(
  {},
  noPlugins,
  'ChangeMessageVisibility',
  ChangeMessageVisibility$,
) {}
export class ListDeadLetterSourceQueuesCommand extends command(
  {},
  noPlugins,
  'ListDeadLetterSourceQueues',
  ListDeadLetterSourceQueues$,
) {}
export class ListQueueTagsCommand extends command({}, noPlugins, 'ListQueueTags', ListQueueTags$) {}
export class GetQueueUrlCommand extends command({}, noPlugins, 'GetQueueUrl', GetQueueUrl$) {}
