/**
 * Bundled in place of `@aws-sdk/client-dynamodb` in the callback and buffer consumer functions (esbuild
 * alias, infra/bundling.ts FUNCTION_ALIASES): the client and the four item commands the callback path's
 * store sends through the document client (GetItem, PutItem, Query, UpdateItem:
 * shared/adapters/dynamodb/transaction-store.ts). The other functions' bundles use
 * dynamodb-store-client.ts, which adds the commands and the error their stores send and tell apart.
 * The package's schemas module registers the error class and schema of every DynamoDB error in module
 * scope, and its runtime config imports its whole package.json: ~23 KB of the callback's bundle that no
 * item call reads. slim-aws-client.ts rebuilds the generated DynamoDBClient without them (same config
 * resolvers and plugins in the same order, the same JSON codec, retries, timeouts, signing, endpoint rules).
 * The errors kept are the ones the relay's code tells apart (ConditionalCheckFailedException, with the
 * item it may carry) and the one the SDK retries by its class's trait (ReplicatedWriteConflictException);
 * any other comes back as DynamoDBServiceException named by its code, which is what the store reads
 * (`error.name`) and what the SDK's retry rules classify (by name and status).
 *
 * The schemas below are the package's own (dist-es/schemas/schemas_0.js), copied;
 * test/unit/infra/slim-clients.test.ts compares them with the package's, builds both clients and compares
 * their config and middleware, and sends through both to compare the requests on the wire and the answers.
 * Local runs and tests keep the package. Should the callback path send another DynamoDB command, export it
 * here too (the bundle fails to build until then).
 */
// @ts-expect-error -- the packages' ESM files have no declarations beside them (they live in dist-types)
import * as accountIdEndpoint from '../../node_modules/@aws-sdk/core/dist-es/submodules/account-id-endpoint/index.js';
// @ts-expect-error -- as above
import { AwsJson1_0Protocol } from '../../node_modules/@aws-sdk/core/dist-es/submodules/protocols/index.js';
// @ts-expect-error -- as above
import { DynamoDBJsonCodec2 } from '../../node_modules/@aws-sdk/dynamodb-codec/dist-es/index.js';
import {
  defaultDynamoDBHttpAuthSchemeParametersProvider,
  defaultDynamoDBHttpAuthSchemeProvider,
  resolveHttpAuthSchemeConfig,
  // @ts-expect-error -- as above
} from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/auth/httpAuthSchemeProvider.js';
import {
  _ep0,
  _ep3,
  _mw0,
  command,
  // @ts-expect-error -- as above
} from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/commandBuilder.js';
// @ts-expect-error -- as above
import { resolveClientEndpointParameters } from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/endpoint/EndpointParameters.js';
// @ts-expect-error -- as above
import { defaultEndpointResolver } from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/endpoint/endpointResolver.js';
// @ts-expect-error -- as above
import { DynamoDBServiceException } from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/models/DynamoDBServiceException.js';
import {
  ConditionalCheckFailedException,
  ReplicatedWriteConflictException,
  // @ts-expect-error -- as above
} from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/models/errors.js';
// @ts-expect-error -- as above
import { resolveRuntimeExtensions } from '../../node_modules/@aws-sdk/client-dynamodb/dist-es/runtimeExtensions.js';
// One field of the package.json: esbuild keeps only what is imported by name from a JSON file.
import { version } from '../../node_modules/@aws-sdk/client-dynamodb/package.json';
// @ts-expect-error -- as above
import * as smithyConfig from '../../node_modules/@smithy/core/dist-es/submodules/config/index.js';
// @ts-expect-error -- as above
import * as smithyRetry from '../../node_modules/@smithy/core/dist-es/submodules/retry/index.js';
// Not a dist-es path: the bundles alias it (no-endpoint-discovery.ts), as they do for the package's client.
import {
  NODE_ENDPOINT_DISCOVERY_CONFIG_OPTIONS,
  resolveEndpointDiscoveryConfig,
} from '@aws-sdk/middleware-endpoint-discovery';
import { type SlimServiceSpec, slimClientClass } from './slim-aws-client';

export { ConditionalCheckFailedException, DynamoDBServiceException, ReplicatedWriteConflictException };

// The schemas, from the package's dist-es/schemas/schemas_0.js (same shapes, same traits).
export const n0 = 'com.amazonaws.dynamodb';
/** A schema in the generated files' array form (references to others are thunks: some are recursive). */
export type Schema = readonly unknown[];
// The package's generated file writes these shapes out once per name; here one function builds each
// family (slim-clients.test.ts still compares every schema below with the package's).
/** A map of attribute values (`AttributeValue` is defined below: the thunk resolves it when read). */
export const attributeValueMap = (name: string): Schema => [2, n0, name, 0, 0, () => AttributeValue];
/** An operation: its input and output structures. */
export const operation = (name: string, input: Schema, output: Schema): Schema => [
  9,
  n0,
  name,
  0,
  () => input,
  () => output,
];
/** The output of PutItem and UpdateItem: the item's attributes as asked, the capacity used, the metrics. */
const itemWriteOutput = (name: string): Schema => [
  3,
  n0,
  name,
  0,
  ['Attributes', 'ConsumedCapacity', 'ItemCollectionMetrics'],
  [() => AttributeMap, () => ConsumedCapacity$, () => ItemCollectionMetrics$],
];
const MapAttributeValue = attributeValueMap('MapAttributeValue');
const ListAttributeValue: Schema = [1, n0, 'ListAttributeValue', 0, () => AttributeValue];
const AttributeValue: Schema = [
  4,
  n0,
  'AttributeValue',
  0,
  ['S', 'N', 'B', 'SS', 'NS', 'BS', 'M', 'L', 'NULL', 'BOOL'],
  [0, 0, 21, 64, 64, 85, () => MapAttributeValue, () => ListAttributeValue, 2, 2],
];
export const Key = attributeValueMap('Key');
const GetItemInput$: Schema = [
  3,
  n0,
  'GetItemInput',
  0,
  [
    'TableName',
    'Key',
    'AttributesToGet',
    'ConsistentRead',
    'ReturnConsumedCapacity',
    'ProjectionExpression',
    'ExpressionAttributeNames',
  ],
  [0, () => Key, 64, 2, 0, 0, 128],
  2,
];
export const AttributeMap = attributeValueMap('AttributeMap');
const Capacity$: Schema = [
  3,
  n0,
  'Capacity',
  0,
  ['ReadCapacityUnits', 'WriteCapacityUnits', 'CapacityUnits'],
  [1, 1, 1],
];
const SecondaryIndexesCapacityMap: Schema = [2, n0, 'SecondaryIndexesCapacityMap', 0, 0, () => Capacity$];
const VectorCapacity$: Schema = [
  3,
  n0,
  'VectorCapacity',
  0,
  ['VectorSearchRequestBytes', 'VectorWriteRequestBytes'],
  [1, 1],
];
const VectorIndexesCapacityMap: Schema = [2, n0, 'VectorIndexesCapacityMap', 0, 0, () => VectorCapacity$];
export const ConsumedCapacity$: Schema = [
  3,
  n0,
  'ConsumedCapacity',
  0,
  [
    'TableName',
    'CapacityUnits',
    'ReadCapacityUnits',
    'WriteCapacityUnits',
    'Table',
    'LocalSecondaryIndexes',
    'GlobalSecondaryIndexes',
    'VectorIndexes',
  ],
  [
    0,
    1,
    1,
    1,
    () => Capacity$,
    () => SecondaryIndexesCapacityMap,
    () => SecondaryIndexesCapacityMap,
    () => VectorIndexesCapacityMap,
  ],
];
const GetItemOutput$: Schema = [
  3,
  n0,
  'GetItemOutput',
  0,
  ['Item', 'ConsumedCapacity'],
  [() => AttributeMap, () => ConsumedCapacity$],
];
const GetItem$ = operation('GetItem', GetItemInput$, GetItemOutput$);
export const PutItemInputAttributeMap = attributeValueMap('PutItemInputAttributeMap');
const AttributeValueList: Schema = [1, n0, 'AttributeValueList', 0, () => AttributeValue];
const ExpectedAttributeValue$: Schema = [
  3,
  n0,
  'ExpectedAttributeValue',
  0,
  ['Value', 'Exists', 'ComparisonOperator', 'AttributeValueList'],
  [() => AttributeValue, 2, 0, () => AttributeValueList],
];
const ExpectedAttributeMap: Schema = [2, n0, 'ExpectedAttributeMap', 0, 0, () => ExpectedAttributeValue$];
export const ExpressionAttributeValueMap = attributeValueMap('ExpressionAttributeValueMap');
const PutItemInput$: Schema = [
  3,
  n0,
  'PutItemInput',
  0,
  [
    'TableName',
    'Item',
    'Expected',
    'ReturnValues',
    'ReturnConsumedCapacity',
    'ReturnItemCollectionMetrics',
    'ConditionalOperator',
    'ConditionExpression',
    'ExpressionAttributeNames',
    'ExpressionAttributeValues',
    'ReturnValuesOnConditionCheckFailure',
  ],
  [
    0,
    () => PutItemInputAttributeMap,
    () => ExpectedAttributeMap,
    0,
    0,
    0,
    0,
    0,
    128,
    () => ExpressionAttributeValueMap,
    0,
  ],
  2,
];
const ItemCollectionKeyAttributeMap = attributeValueMap('ItemCollectionKeyAttributeMap');
export const ItemCollectionMetrics$: Schema = [
  3,
  n0,
  'ItemCollectionMetrics',
  0,
  ['ItemCollectionKey', 'SizeEstimateRangeGB'],
  [() => ItemCollectionKeyAttributeMap, 65],
];
const PutItemOutput$ = itemWriteOutput('PutItemOutput');
const PutItem$ = operation('PutItem', PutItemInput$, PutItemOutput$);
const Condition$: Schema = [
  3,
  n0,
  'Condition',
  0,
  ['ComparisonOperator', 'AttributeValueList'],
  [0, () => AttributeValueList],
  1,
];
const KeyConditions: Schema = [2, n0, 'KeyConditions', 0, 0, () => Condition$];
export const FilterConditionMap: Schema = [2, n0, 'FilterConditionMap', 0, 0, () => Condition$];
const QueryInput$: Schema = [
  3,
  n0,
  'QueryInput',
  0,
  [
    'TableName',
    'IndexName',
    'Select',
    'AttributesToGet',
    'Limit',
    'ConsistentRead',
    'KeyConditions',
    'QueryFilter',
    'ConditionalOperator',
    'ScanIndexForward',
    'ExclusiveStartKey',
    'ReturnConsumedCapacity',
    'ProjectionExpression',
    'FilterExpression',
    'KeyConditionExpression',
    'ExpressionAttributeNames',
    'ExpressionAttributeValues',
  ],
  [
    0,
    0,
    0,
    64,
    1,
    2,
    () => KeyConditions,
    () => FilterConditionMap,
    0,
    2,
    () => Key,
    0,
    0,
    0,
    0,
    128,
    () => ExpressionAttributeValueMap,
  ],
  1,
];
export const ItemList: Schema = [1, n0, 'ItemList', 0, () => AttributeMap];
const QueryOutput$: Schema = [
  3,
  n0,
  'QueryOutput',
  0,
  ['Items', 'Count', 'ScannedCount', 'LastEvaluatedKey', 'ConsumedCapacity'],
  [() => ItemList, 1, 1, () => Key, () => ConsumedCapacity$],
];
const Query$ = operation('Query', QueryInput$, QueryOutput$);
const AttributeValueUpdate$: Schema = [
  3,
  n0,
  'AttributeValueUpdate',
  0,
  ['Value', 'Action'],
  [() => AttributeValue, 0],
];
const AttributeUpdates: Schema = [2, n0, 'AttributeUpdates', 0, 0, () => AttributeValueUpdate$];
const UpdateItemInput$: Schema = [
  3,
  n0,
  'UpdateItemInput',
  0,
  [
    'TableName',
    'Key',
    'AttributeUpdates',
    'Expected',
    'ConditionalOperator',
    'ReturnValues',
    'ReturnConsumedCapacity',
    'ReturnItemCollectionMetrics',
    'UpdateExpression',
    'ConditionExpression',
    'ExpressionAttributeNames',
    'ExpressionAttributeValues',
    'ReturnValuesOnConditionCheckFailure',
  ],
  [
    0,
    () => Key,
    () => AttributeUpdates,
    () => ExpectedAttributeMap,
    0,
    0,
    0,
    0,
    0,
    0,
    128,
    () => ExpressionAttributeValueMap,
    0,
  ],
  2,
];
const UpdateItemOutput$ = itemWriteOutput('UpdateItemOutput');
const UpdateItem$ = operation('UpdateItem', UpdateItemInput$, UpdateItemOutput$);
const DescribeEndpointsRequest$: Schema = [3, n0, 'DescribeEndpointsRequest', 0, [], []];
const Endpoint$: Schema = [3, n0, 'Endpoint', 0, ['Address', 'CachePeriodInMinutes'], [0, 1], 2];
const Endpoints: Schema = [1, n0, 'Endpoints', 0, () => Endpoint$];
const DescribeEndpointsResponse$: Schema = [
  3,
  n0,
  'DescribeEndpointsResponse',
  0,
  ['Endpoints'],
  [() => Endpoints],
  1,
];
const DescribeEndpoints$ = operation(
  'DescribeEndpoints',
  DescribeEndpointsRequest$,
  DescribeEndpointsResponse$,
);
const ConditionalCheckFailedException$: Schema = [
  -3,
  n0,
  'ConditionalCheckFailedException',
  { error: 'client' },
  ['message', 'Item'],
  [0, () => AttributeMap],
];
const ReplicatedWriteConflictException$: Schema = [
  -3,
  n0,
  'ReplicatedWriteConflictException',
  { error: 'client' },
  ['message'],
  [0],
];

/** The schemas copied above, by name (test/unit/infra/slim-clients.test.ts compares them with the package's). */
export const COPIED_SCHEMAS: Record<string, unknown> = {
  GetItem$,
  PutItem$,
  Query$,
  UpdateItem$,
  DescribeEndpoints$,
  ConditionalCheckFailedException$,
  ReplicatedWriteConflictException$,
};

/** An item command as the package builds it (its endpoint parameters and middleware: commandBuilder.js). */
const itemCommand = (name: string, schema: Schema) => command(_ep3, _mw0, name, schema);
export class GetItemCommand extends itemCommand('GetItem', GetItem$) {}
export class PutItemCommand extends itemCommand('PutItem', PutItem$) {}
export class QueryCommand extends itemCommand('Query', Query$) {}
export class UpdateItemCommand extends itemCommand('UpdateItem', UpdateItem$) {}
/** The command endpoint discovery would send: the generated client hands it to its config (never sent here). */
export class DescribeEndpointsCommand extends command(_ep0, _mw0, 'DescribeEndpoints', DescribeEndpoints$) {}

/** DynamoDB's generated client as a slim client's spec (dynamodb-store-client.ts adds an error to it). */
export const DYNAMODB_SPEC: SlimServiceSpec = {
  serviceId: 'DynamoDB',
  apiVersion: '2012-08-10',
  clientVersion: version,
  protocol: AwsJson1_0Protocol,
  protocolSettings: {
    defaultNamespace: n0,
    xmlNamespace: 'http://dynamodb.amazonaws.com/doc/2012-08-10/',
    version: '2012-08-10',
    serviceTarget: 'DynamoDB_20120810',
  },
  protocolSettingsPerClient: () => ({ jsonCodec: new DynamoDBJsonCodec2() }),
  baseException: DynamoDBServiceException,
  errors: [
    [ConditionalCheckFailedException$, ConditionalCheckFailedException],
    [ReplicatedWriteConflictException$, ReplicatedWriteConflictException],
  ],
  defaultSocketTimeoutMs: 300_000,
  httpAuthSchemeProvider: defaultDynamoDBHttpAuthSchemeProvider,
  httpAuthSchemeParametersProvider: defaultDynamoDBHttpAuthSchemeParametersProvider,
  resolveHttpAuthSchemeConfig,
  endpointResolver: defaultEndpointResolver,
  resolveClientEndpointParameters,
  resolveRuntimeExtensions,
  resolveAfterEndpointParameters: accountIdEndpoint.resolveAccountIdEndpointModeConfig,
  retryDefaults: {
    defaultBaseDelay: smithyRetry.Retry.v2026 ? 25 : undefined,
    defaultMaxAttempts: smithyRetry.Retry.v2026 ? 4 : undefined,
  },
  resolveAfterHttpAuthScheme: (config) =>
    resolveEndpointDiscoveryConfig(config, { endpointDiscoveryCommandCtor: DescribeEndpointsCommand }),
  serviceRuntimeConfig: (config, loaderConfig) => ({
    accountIdEndpointMode:
      config.accountIdEndpointMode ??
      smithyConfig.loadConfig(accountIdEndpoint.NODE_ACCOUNT_ID_ENDPOINT_MODE_CONFIG_OPTIONS, loaderConfig),
    endpointDiscoveryEnabledProvider:
      config.endpointDiscoveryEnabledProvider ??
      smithyConfig.loadConfig(NODE_ENDPOINT_DISCOVERY_CONFIG_OPTIONS, loaderConfig),
    maxAttempts:
      config.maxAttempts ??
      smithyConfig.loadConfig(
        smithyRetry.Retry.v2026
          ? { ...smithyRetry.NODE_MAX_ATTEMPT_CONFIG_OPTIONS, default: 4 }
          : smithyRetry.NODE_MAX_ATTEMPT_CONFIG_OPTIONS,
        config,
      ),
  }),
};

// Pure: a bundle that takes the store client instead (dynamodb-store-client.ts) builds only that one.
export const DynamoDBClient = /* @__PURE__ */ slimClientClass(DYNAMODB_SPEC);
