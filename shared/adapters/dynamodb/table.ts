import type { CreateTableCommandInput } from '@aws-sdk/client-dynamodb';

/**
 * One table, item collections per transaction (see docs/table-design.md):
 *   pk TX#<provider>#<account>#<reference>   sk TX            the transaction (status, history, outbox)
 *   pk TX#<provider>#<account>#<reference>   sk RCPT#<id>     each distinct callback body received
 *   pk QUARANTINE#<yyyy-mm-dd>               sk <time>#<id>   each rejected request
 * The stream (NEW_AND_OLD_IMAGES) is the outbox: items whose write carries `outbox` events get published.
 */
export const TABLE_KEYS = { partitionKey: 'pk', sortKey: 'sk', ttlAttribute: 'expiresAt' } as const;

export function createTableInput(tableName: string): CreateTableCommandInput {
  return {
    TableName: tableName,
    BillingMode: 'PAY_PER_REQUEST',
    AttributeDefinitions: [
      { AttributeName: TABLE_KEYS.partitionKey, AttributeType: 'S' },
      { AttributeName: TABLE_KEYS.sortKey, AttributeType: 'S' },
    ],
    KeySchema: [
      { AttributeName: TABLE_KEYS.partitionKey, KeyType: 'HASH' },
      { AttributeName: TABLE_KEYS.sortKey, KeyType: 'RANGE' },
    ],
    StreamSpecification: { StreamEnabled: true, StreamViewType: 'NEW_AND_OLD_IMAGES' },
  };
}

export function transactionPk(key: { provider: string; account: string; reference: string }): string {
  return `TX#${key.provider}#${key.account}#${key.reference}`;
}
export const TX_SK = 'TX';
export const RECEIPT_SK_PREFIX = 'RCPT#';
export const QUARANTINE_PK_PREFIX = 'QUARANTINE#';
