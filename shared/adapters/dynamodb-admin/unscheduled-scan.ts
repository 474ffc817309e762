import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import type { UnscheduledScan } from '../../app/ports';
import type { TransactionKey } from '../../domain/transaction';
import { TX_SK } from '../dynamodb/table';
import { keyOfPk } from '../dynamodb/transaction-item';

/**
 * The one-time `npm run reschedule`'s view of the table (docs/reconciliation.md#callback-health): a full
 * scan for non-final transactions without a `reconcile` state. An operator's tool, run with the
 * operator's credentials: kept out of the functions' store (shared/adapters/dynamodb), whose role is
 * granted no Scan.
 */
export class DynamoUnscheduledScan implements UnscheduledScan {
  constructor(
    private readonly doc: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async scanUnscheduled(cursor?: string): Promise<{ keys: TransactionKey[]; cursor?: string }> {
    const page = await this.doc.send(
      new ScanCommand({
        TableName: this.tableName,
        FilterExpression: 'sk = :tx AND attribute_not_exists(#rec) AND #status IN (:pending, :ambiguous)',
        ExpressionAttributeNames: {
          '#rec': 'reconcile',
          '#status': 'status',
        },
        ExpressionAttributeValues: { ':tx': TX_SK, ':pending': 'PENDING', ':ambiguous': 'AMBIGUOUS' },
        // The key is the pk's (a compact item has no provider/account/reference attributes).
        ProjectionExpression: 'pk',
        ExclusiveStartKey: cursor ? (JSON.parse(cursor) as Record<string, unknown>) : undefined,
      }),
    );
    const keys = (page.Items ?? []).flatMap((item) => keyOfPk(String(item.pk)) ?? []);
    return { keys, ...(page.LastEvaluatedKey ? { cursor: JSON.stringify(page.LastEvaluatedKey) } : {}) };
  }
}
