import type { ConsumedCapacity } from '@aws-sdk/client-dynamodb';
import { BatchGetCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { StorageUnavailableError } from '../../domain/errors';
import { guard } from './transaction-store';

/** BatchGetItem's own limit: at most 100 keys a request. */
export const BATCH_GET_KEYS = 100;
/** Rounds of UnprocessedKeys asked again before the read counts as failed (DynamoDB throttled it). */
const UNPROCESSED_ROUNDS = 5;
const UNPROCESSED_BACKOFF_MS = 50;

export interface BatchGetOptions {
  tableName: string;
  /** The operation's name, for errors and the bench's capacity hook. */
  operation: string;
  /** Strongly consistent reads (twice the read units); eventually consistent by default. */
  consistent?: boolean;
  onConsumedCapacity?: (operation: string, capacity: ConsumedCapacity | undefined) => void;
}

const keyId = (key: { pk: string; sk: string }) => `${key.pk}\u0000${key.sk}`;

/**
 * The items of these keys that exist, eventually consistent unless `consistent`, 100 keys a request (duplicates asked once).
 * Keys DynamoDB leaves unprocessed (throttled, or over 16 MB) are asked again a few times with a short
 * backoff; still unprocessed, the read fails as a store outage (StorageUnavailableError), never as
 * "absent": a row taken for absent would be imported twice.
 */
export async function batchGetItems(
  doc: DynamoDBDocumentClient,
  keys: readonly { pk: string; sk: string }[],
  options: BatchGetOptions,
): Promise<Record<string, unknown>[]> {
  const unique = [...new Map(keys.map((k) => [keyId(k), { pk: k.pk, sk: k.sk }])).values()];
  const items: Record<string, unknown>[] = [];
  for (let at = 0; at < unique.length; at += BATCH_GET_KEYS) {
    let pending: Record<string, unknown>[] = unique.slice(at, at + BATCH_GET_KEYS);
    for (let round = 0; pending.length > 0; round++) {
      if (round > UNPROCESSED_ROUNDS)
        throw new StorageUnavailableError(
          `DynamoDB ${options.operation} failed: ${pending.length} keys left unprocessed after ${UNPROCESSED_ROUNDS} retries`,
        );
      if (round > 0) await new Promise((resolve) => setTimeout(resolve, UNPROCESSED_BACKOFF_MS * 2 ** round));
      const result = await guard(options.operation, () =>
        doc.send(
          new BatchGetCommand({
            RequestItems: {
              [options.tableName]: { Keys: pending, ...(options.consistent ? { ConsistentRead: true } : {}) },
            },
            ...(options.onConsumedCapacity ? { ReturnConsumedCapacity: 'TOTAL' as const } : {}),
          }),
        ),
      );
      for (const capacity of result.ConsumedCapacity ?? [])
        options.onConsumedCapacity?.(options.operation, capacity);
      items.push(...(result.Responses?.[options.tableName] ?? []));
      pending = result.UnprocessedKeys?.[options.tableName]?.Keys ?? [];
    }
  }
  return items;
}
