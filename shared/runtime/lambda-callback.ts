import type { Logger } from '@aws-lambda-powertools/logger';
import { DynamoTransactionStore } from '../adapters/dynamodb/transaction-store';
import type { CallbackStore } from '../app/ports';
import type { CallbackConfig } from '../config/callback-config';
import { parseCallbackConfig } from '../config/loader';
import { type LambdaServicesWith, lambdaCoreServices } from './lambda-core';

/**
 * The callback function's wiring: the core services on the callback path's store (receipts, transactions,
 * quarantine, provider records: DynamoTransactionStore), so the callback's bundle leaves out the code of
 * the store's other ports (reconciliation, console, operations) that only the other functions read.
 */
export async function lambdaCallbackServices(
  serviceName: string,
): Promise<{ services: LambdaServicesWith<CallbackStore, CallbackConfig>; logger: Logger }> {
  const { services, logger } = await lambdaCoreServices(
    serviceName,
    (doc, options): CallbackStore => new DynamoTransactionStore(doc, options),
    parseCallbackConfig,
  );
  return { services, logger };
}
