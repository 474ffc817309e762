/**
 * Bundled in place of `@aws-sdk/client-dynamodb` in every function but the callback and the buffer consumer
 * (esbuild alias, infra/bundling.ts BUNDLE_OPTIONS.alias; those two take dynamodb-client.ts alone): the slim client of dynamodb-client.ts with what the
 * whole relay store sends besides its four item commands, BatchGetItem (shared/adapters/dynamodb/batch-get.ts)
 * and TransactWriteItems (statement-store.ts), and the error a transaction's cancellation comes back as,
 * TransactionCanceledException with its CancellationReasons (statement-store.ts reads them). As for the
 * callback, the package's schemas module would register every DynamoDB error class and schema in module
 * scope and its runtime config import the whole package.json: ~20 KB of each of these bundles that no call
 * reads. Any other error comes back as DynamoDBServiceException named by its code, as there.
 *
 * The schemas below are the package's own (dist-es/schemas/schemas_0.js), copied;
 * test/unit/infra/slim-clients.test.ts compares them with the package's and sends through both clients.
 * Should one of these functions send another DynamoDB command, export it here (the bundle fails to build
 * until then), and its document command in dynamodb-store-document-client.ts.
 */
import {
  _ep1,
  _ep14,
  _mw0,
  command,
  // @ts-expect-error -- the packages' ESM files have no declarations beside them (they live in dist-types)
} from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/commandBuilder.js';
// @ts-expect-error -- as above
import { TransactionCanceledException } from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/models/errors.js';
import {
  AttributeMap,
  ConsumedCapacity$,
  DYNAMODB_SPEC,
  ExpressionAttributeValueMap,
  ItemCollectionMetrics$,
  ItemList,
  Key,
  n0,
  operation,
  PutItemInputAttributeMap,
  type Schema,
} from './dynamodb-client';
import { slimClientClass } from './slim-aws-client';

export {
  ConditionalCheckFailedException,
  DescribeEndpointsCommand,
  DynamoDBServiceException,
  GetItemCommand,
  PutItemCommand,
  QueryCommand,
  ReplicatedWriteConflictException,
  UpdateItemCommand,
} from './dynamodb-client';
export { TransactionCanceledException };

// The schemas, from the package's dist-es/schemas/schemas_0.js (same shapes, same traits).
const KeyList: Schema = [1, n0, 'KeyList', 0, () => Key];
const KeysAndAttributes$: Schema = [
  3,
  n0,
  'KeysAndAttributes',
  0,
  ['Keys', 'AttributesToGet', 'ConsistentRead', 'ProjectionExpression', 'ExpressionAttributeNames'],
  [() => KeyList, 64, 2, 0, 128],
  1,
];
const BatchGetRequestMap: Schema = [2, n0, 'BatchGetRequestMap', 0, 0, () => KeysAndAttributes$];
const BatchGetResponseMap: Schema = [2, n0, 'BatchGetResponseMap', 0, 0, () => ItemList];
const ConsumedCapacityMultiple: Schema = [1, n0, 'ConsumedCapacityMultiple', 0, () => ConsumedCapacity$];
const BatchGetItemInput$: Schema = [
  3,
  n0,
  'BatchGetItemInput',
  0,
  ['RequestItems', 'ReturnConsumedCapacity'],
  [() => BatchGetRequestMap, 0],
  1,
];
const BatchGetItemOutput$: Schema = [
  3,
  n0,
  'BatchGetItemOutput',
  0,
  ['Responses', 'UnprocessedKeys', 'ConsumedCapacity'],
  [() => BatchGetResponseMap, () => BatchGetRequestMap, () => ConsumedCapacityMultiple],
];
const BatchGetItem$ = operation('BatchGetItem', BatchGetItemInput$, BatchGetItemOutput$);

/** A transaction's item write: what it names first (the key, or Put's item), then the condition's parts. */
const transactWrite = (name: string, first: readonly [string, Schema], update: boolean, required: number) => [
  3,
  n0,
  name,
  0,
  [
    first[0],
    ...(update ? ['UpdateExpression'] : []),
    'TableName',
    'ConditionExpression',
    'ExpressionAttributeNames',
    'ExpressionAttributeValues',
    'ReturnValuesOnConditionCheckFailure',
  ],
  [() => first[1], ...(update ? [0] : []), 0, 0, 128, () => ExpressionAttributeValueMap, 0],
  required,
];
const ConditionCheck$: Schema = transactWrite('ConditionCheck', ['Key', Key], false, 3);
const Put$: Schema = transactWrite('Put', ['Item', PutItemInputAttributeMap], false, 2);
const Delete$: Schema = transactWrite('Delete', ['Key', Key], false, 2);
const Update$: Schema = transactWrite('Update', ['Key', Key], true, 3);
const TransactWriteItem$: Schema = [
  3,
  n0,
  'TransactWriteItem',
  0,
  ['ConditionCheck', 'Put', 'Delete', 'Update'],
  [() => ConditionCheck$, () => Put$, () => Delete$, () => Update$],
];
const TransactWriteItemList: Schema = [1, n0, 'TransactWriteItemList', 0, () => TransactWriteItem$];
const ItemCollectionMetricsMultiple: Schema = [
  1,
  n0,
  'ItemCollectionMetricsMultiple',
  0,
  () => ItemCollectionMetrics$,
];
const ItemCollectionMetricsPerTable: Schema = [
  2,
  n0,
  'ItemCollectionMetricsPerTable',
  0,
  0,
  () => ItemCollectionMetricsMultiple,
];
const TransactWriteItemsInput$: Schema = [
  3,
  n0,
  'TransactWriteItemsInput',
  0,
  ['TransactItems', 'ReturnConsumedCapacity', 'ReturnItemCollectionMetrics', 'ClientRequestToken'],
  // [0, 4]: a string with the idempotency-token trait (the SDK fills in a fresh one when none is given).
  [() => TransactWriteItemList, 0, 0, [0, 4]],
  1,
];
const TransactWriteItemsOutput$: Schema = [
  3,
  n0,
  'TransactWriteItemsOutput',
  0,
  ['ConsumedCapacity', 'ItemCollectionMetrics'],
  [() => ConsumedCapacityMultiple, () => ItemCollectionMetricsPerTable],
];
const TransactWriteItems$ = operation(
  'TransactWriteItems',
  TransactWriteItemsInput$,
  TransactWriteItemsOutput$,
);
const CancellationReason$: Schema = [
  3,
  n0,
  'CancellationReason',
  0,
  ['Item', 'Code', 'Message'],
  [() => AttributeMap, 0, 0],
];
const CancellationReasonList: Schema = [1, n0, 'CancellationReasonList', 0, () => CancellationReason$];
const TransactionCanceledException$: Schema = [
  -3,
  n0,
  'TransactionCanceledException',
  { error: 'client' },
  ['Message', 'CancellationReasons'],
  [0, () => CancellationReasonList],
];

/** The schemas copied above, by name (test/unit/infra/slim-clients.test.ts compares them with the package's). */
export const COPIED_SCHEMAS: Record<string, unknown> = {
  BatchGetItem$,
  TransactWriteItems$,
  TransactionCanceledException$,
};

// The package's commands, with their endpoint parameters (commandBuilder.js: the tables they name).
export class BatchGetItemCommand extends command(_ep1, _mw0, 'BatchGetItem', BatchGetItem$) {}
export class TransactWriteItemsCommand extends command(
  _ep14,
  _mw0,
  'TransactWriteItems',
  TransactWriteItems$,
) {}

export const DynamoDBClient = slimClientClass({
  ...DYNAMODB_SPEC,
  errors: [...(DYNAMODB_SPEC.errors ?? []), [TransactionCanceledException$, TransactionCanceledException]],
});
