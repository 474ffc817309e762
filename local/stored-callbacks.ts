import { type DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import {
  applyStoredCallbacks,
  type RecoveryResult,
  type StoredReceipt,
  type StoredReceiptSource,
} from '../shared/app/callbacks/recover-stored-callbacks';
import type { RelayServices } from '../shared/app/services';
import { widenReceiptItem } from '../shared/adapters/dynamodb/receipt-item';
import { resolveRoute } from '../shared/http/router';

/** How far back `npm start` looks for callbacks stored but not applied by the previous run. */
const RECOVERY_WINDOW_HOURS = 24;

/**
 * The receipts of the local table received since a moment: a Scan, which only the local runtime makes
 * (DynamoDB Local with --data-dir is small; the cloud's roles have no Scan).
 */
function scannedReceipts(doc: DynamoDBDocumentClient, tableName: string): StoredReceiptSource {
  return async function* (since) {
    let cursor: Record<string, unknown> | undefined;
    do {
      const page = await doc.send(
        new ScanCommand({
          TableName: tableName,
          FilterExpression: 'itemType = :receipt AND lastReceivedAt >= :since',
          ExpressionAttributeValues: { ':receipt': 'receipt', ':since': since },
          ExclusiveStartKey: cursor,
        }),
      );
      const items = (page.Items ?? []).sort((a, b) =>
        String(a.lastReceivedAt).localeCompare(String(b.lastReceivedAt)),
      );
      for (const item of items) yield receiptOf(widenReceiptItem(item));
      cursor = page.LastEvaluatedKey;
    } while (cursor);
  };
}

function receiptOf(item: Record<string, unknown>): StoredReceipt {
  return {
    key: {
      provider: String(item.provider),
      account: String(item.account),
      reference: String(item.reference),
    },
    receiptId: String(item.receiptId),
    dedupeKey: String(item.dedupeKey),
    routeName: String(item.routeName),
    method: String(item.method),
    path: String(item.path),
    headers: (item.headers ?? {}) as Record<string, string>,
    sourceIp: String(item.sourceIp),
    body: String(item.body),
    verification: (item.verification ?? {}) as Record<string, unknown>,
    firstReceivedAt: String(item.firstReceivedAt),
    lastReceivedAt: String(item.lastReceivedAt),
    ...(item.bodyDropped === true ? { bodyDropped: true } : {}),
  };
}

/**
 * At `npm start`, before the server takes callbacks and the poller runs: callbacks the previous run
 * stored but did not apply (it stopped between the receipt and the transaction write) are applied now,
 * once, through the one ingest pipeline. A failure here is logged; the relay starts anyway.
 */
export async function applyStoredCallbacksAtStart(
  services: RelayServices,
  doc: DynamoDBDocumentClient,
  tableName: string,
): Promise<RecoveryResult | undefined> {
  const since = new Date(services.clock.now().getTime() - RECOVERY_WINDOW_HOURS * 3_600_000).toISOString();
  try {
    return await applyStoredCallbacks(services, scannedReceipts(doc, tableName), {
      since,
      routeOf: (request) => resolveRoute(services.config, { ...request, query: {} }, {}),
    });
  } catch (error) {
    services.log.error('stored callbacks could not be looked at on start', {
      error: services.scrub((error as Error).message),
    });
    return undefined;
  }
}
