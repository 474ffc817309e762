import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type { Construct } from 'constructs';
import { ACCOUNT_DAY_INDEX, DAY_INDEX, DUE_INDEX, TABLE_KEYS } from '../../shared/adapters/dynamodb/table';

/**
 * DynamoDB actions the HTTP functions need: exactly the commands
 * `shared/adapters/dynamodb/` sends (Get, BatchGet, Put, Update, Query, and DescribeTable for the
 * readiness ping) plus ConditionCheckItem for transactional writes. No Scan, no table management.
 * test/infra checks this list against the store's source, so a new command there fails the tests
 * until it is granted here.
 */
export const TABLE_DATA_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:Query',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:ConditionCheckItem',
  'dynamodb:DescribeTable',
] as const;

/**
 * DynamoDB actions of the poller: list due items (Query on the `due` index), claim and update them,
 * read and write transactions, the readiness ping. No ConditionCheckItem (the store sends no
 * transactional writes), no Scan. Granted on the table and both its indexes.
 */
export const POLLER_TABLE_ACTIONS = [
  'dynamodb:GetItem',
  'dynamodb:BatchGetItem',
  'dynamodb:PutItem',
  'dynamodb:UpdateItem',
  'dynamodb:Query',
  'dynamodb:DescribeTable',
] as const;

/**
 * KMS actions on a customer-managed table key (`tableEncryptionKey`), spelled out instead of
 * `grantEncryptDecrypt`'s `kms:ReEncrypt*`/`kms:GenerateDataKey*` wildcards, and only through DynamoDB
 * (`kms:ViaService`): what a table reader/writer needs when the table uses that key.
 */
export const TABLE_KEY_ACTIONS = [
  'kms:Decrypt',
  'kms:Encrypt',
  'kms:GenerateDataKey',
  'kms:ReEncryptFrom',
  'kms:ReEncryptTo',
  'kms:DescribeKey',
] as const;

/** The relay table: one table, its stream is the outbox; `due` and `byDay` indexes. */
export function createTable(
  scope: Construct,
  options: { encryptionKey: kms.IKey | undefined; removalPolicy: RemovalPolicy },
): dynamodb.Table {
  const table = new dynamodb.Table(scope, 'Table', {
    partitionKey: { name: TABLE_KEYS.partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: TABLE_KEYS.sortKey, type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: TABLE_KEYS.ttlAttribute,
    stream: dynamodb.StreamViewType.NEW_AND_OLD_IMAGES,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    encryption: options.encryptionKey
      ? dynamodb.TableEncryption.CUSTOMER_MANAGED
      : dynamodb.TableEncryption.AWS_MANAGED,
    encryptionKey: options.encryptionKey,
    removalPolicy: options.removalPolicy,
    deletionProtection: options.removalPolicy === RemovalPolicy.RETAIN,
  });
  // Keys only: the poller's claim (UpdateItem, ALL_NEW) and the report read the items themselves.
  for (const index of [DUE_INDEX, DAY_INDEX]) {
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.KEYS_ONLY,
    });
  }
  // A daily close reads what it adds up from the index itself (table.ts ACCOUNT_DAY_INDEX).
  table.addGlobalSecondaryIndex({
    indexName: ACCOUNT_DAY_INDEX.name,
    partitionKey: { name: ACCOUNT_DAY_INDEX.partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: ACCOUNT_DAY_INDEX.sortKey, type: dynamodb.AttributeType.STRING },
    projectionType: dynamodb.ProjectionType.INCLUDE,
    nonKeyAttributes: [...ACCOUNT_DAY_INDEX.projected],
  });
  return table;
}

/**
 * Table access: item reads/writes on this table only (no Scan, no table management); indexes only where
 * a function queries them. With a customer-managed key, every function that reads the table may use it,
 * through DynamoDB only.
 */
export function grantTableAccess(
  table: dynamodb.Table,
  fns: {
    /** Item reads and writes on the table itself. */
    itemReaders: lambda.IFunction[];
    /**
     * Also query the `byDay` and `byAccountDay` indexes: the reconciliation report, and the account-day
     * reader of a daily close and a statement import (management over HTTP, statements from S3 and its
     * scheduled close).
     */
    reporters: lambda.IFunction[];
    /** Claims due items: both indexes. */
    poller: lambda.IFunction;
    /** Every function that reads the table (and so needs its key). */
    keyUsers: lambda.IFunction[];
  },
  encryptionKey: kms.IKey | undefined,
): void {
  const indexArn = (index: { name: string }) => `${table.tableArn}/index/${index.name}`;
  for (const fn of fns.itemReaders) {
    fn.addToRolePolicy(
      new iam.PolicyStatement({ actions: [...TABLE_DATA_ACTIONS], resources: [table.tableArn] }),
    );
  }
  // The reconciliation report lists transactions by creation day; the daily close reads its account's day.
  for (const fn of fns.reporters) {
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: ['dynamodb:Query'],
        resources: [indexArn(DAY_INDEX), indexArn(ACCOUNT_DAY_INDEX)],
      }),
    );
  }
  fns.poller.addToRolePolicy(
    new iam.PolicyStatement({
      actions: [...POLLER_TABLE_ACTIONS],
      // The balance cycle adds up an account's finals between snapshots from the account-day index.
      resources: [table.tableArn, indexArn(DUE_INDEX), indexArn(DAY_INDEX), indexArn(ACCOUNT_DAY_INDEX)],
    }),
  );
  if (!encryptionKey) return;
  const stack = Stack.of(table);
  for (const fn of fns.keyUsers) {
    fn.addToRolePolicy(
      new iam.PolicyStatement({
        actions: [...TABLE_KEY_ACTIONS],
        resources: [encryptionKey.keyArn],
        conditions: { StringEquals: { 'kms:ViaService': `dynamodb.${stack.region}.${stack.urlSuffix}` } },
      }),
    );
  }
}
