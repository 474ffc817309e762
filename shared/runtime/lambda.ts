import { StatementLedger } from '../app/statements/statement-sink';
import type { Logger } from '@aws-lambda-powertools/logger';
import { wordPressBadgeApi } from '../adapters/badges/wordpress-badge-api';
import { DynamoRelayStore } from '../adapters/dynamodb/relay-store';
import { DynamoStatementStore } from '../adapters/dynamodb/statement-store';
import { sharedSecretReader } from '../adapters/secrets/secrets-manager';
import type { ReconcileServices } from '../app/reconciliation/reconcile';
import { statusApiRegistry } from '../app/reconciliation/status-apis';
import { parseConfig } from '../config/load';
import { requireEnv } from './env';
import { type DynamoDoc, type LambdaRelayServices, lambdaCoreServices } from './lambda-core';

/**
 * Composition root of the Lambda functions but the callback and the buffer consumer (lambda-callback.ts):
 * the core services on the whole relay store (every port: DynamoRelayStore) plus the provider's own records
 * (statements), whose adapters the callback path never uses. The webhook destinations' log, states and replays are the management function's alone
 * (lambda-management.ts): their adapters and the SQS client stay out of the other bundles.
 */
export async function lambdaServices(
  serviceName: string,
): Promise<{ services: LambdaRelayServices; logger: Logger; doc: DynamoDoc }> {
  const { services, logger, doc } = await lambdaCoreServices(
    serviceName,
    (doc, options) => new DynamoRelayStore(doc, options),
    parseConfig,
  );
  const { config } = services;
  return {
    logger,
    doc,
    services: {
      ...services,
      statements: new DynamoStatementStore(doc, {
        tableName: requireEnv('TABLE_NAME'),
        retentionDays: config.retention.transactionDays,
      }),
    },
  };
}

/**
 * The poller's wiring: the relay's services plus one status API client per account (created once per
 * cold start, so tokens are cached across invocations).
 */
export async function lambdaReconcileServices(
  serviceName: string,
): Promise<{ services: ReconcileServices; logger: Logger; doc: DynamoDoc }> {
  const { services, logger, doc } = await lambdaServices(serviceName);
  return {
    logger,
    doc,
    services: {
      ...services,
      statusApi: statusApiRegistry(services),
      readSecret: sharedSecretReader(),
      badgeApi: wordPressBadgeApi({ readSecret: sharedSecretReader() }),
      // The pull and balance cycles hand the provider's own records to the one statement ledger.
      ...(services.statements
        ? { statementSink: new StatementLedger({ ...services, statements: services.statements }) }
        : {}),
    },
  };
}
