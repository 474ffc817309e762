import type { AttributeValue } from '@aws-sdk/client-dynamodb';
import { unmarshall } from '@aws-sdk/util-dynamodb';
import type { DynamoDBRecord } from 'aws-lambda';
import type { TransactionRecord } from '../../domain/transaction';
import { toRecord } from './relay-store';
import { TX_SK } from './table';
import { widenTransactionItem } from './transaction-item';

export interface ItemImages {
  oldImage: Record<string, unknown> | undefined;
  newImage: Record<string, unknown> | undefined;
}

/** A DynamoDB stream record's before/after images as plain objects (a transaction item widened). */
export function imagesOf(record: DynamoDBRecord): ItemImages {
  const decode = (raw: Record<string, unknown> | undefined) =>
    raw ? widenTransactionItem(unmarshall(raw as Record<string, AttributeValue>)) : undefined;
  return { oldImage: decode(record.dynamodb?.OldImage), newImage: decode(record.dynamodb?.NewImage) };
}

/**
 * The transaction a stream record wrote, when it changed what a reader sees (`updatedAt` moved; a lease or
 * a due time alone does not): undefined for receipts, lookups and the like, and for removals.
 */
export function changedTransaction(record: DynamoDBRecord): TransactionRecord | undefined {
  if (record.dynamodb?.Keys?.sk?.S !== TX_SK || !record.dynamodb.NewImage) return undefined;
  const { oldImage, newImage } = imagesOf(record);
  if (!newImage || oldImage?.updatedAt === newImage.updatedAt) return undefined;
  return toRecord(newImage);
}
