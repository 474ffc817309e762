import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@aws-lambda-powertools/logger';
import { createDynamoClients } from '../adapters/dynamodb/client';
import { DynamoDeliveryLog } from '../adapters/dynamodb/delivery-log';
import {
  DESTINATION_STATE_CACHE_MS,
  DynamoDestinationStateStore,
} from '../adapters/dynamodb/destination-state-store';
import { PowertoolsRelayMetrics } from '../adapters/metrics/powertools-metrics';
import { sharedSecretReader } from '../adapters/secrets/secrets-manager';
import { createSqsBufferClient } from '../adapters/sqs/sqs-ingress-buffer';
import { sqsDeliveryQueue } from '../adapters/sqs/sqs-delivery-queue';
import { sqsPartnerQueues } from '../adapters/sqs/partner-queue';
import { stsRoleAssumer } from '../adapters/sqs/partner-role';
import type { DestinationIo } from '../destinations/ports';
import { createDeliverers, destinationProblems } from '../destinations/registry';
import { startTracing } from '../adapters/tracing/xray';
import { HttpWebhookSender } from '../adapters/webhooks/http-sender';
import { secretRefResolver } from '../app/delivery/destinations-admin';
import { signingSecretsOf } from '../app/delivery/signing-secrets';
import { systemClock } from '../app/ports';
import { scrubbingLogger } from '../app/services';
import { loadConfig } from '../config/load';
import { ConfigError } from '../domain/errors';
import { FUNCTION_SECRET_KINDS } from '../config/secret-reader';
import { secretScrubber } from '../config/secrets';
import { createScrubber } from '../util/redact';
import { useInvocationMetrics } from './lambda-middleware';
import { requireEnv } from './env';
import type { QueueDeliveryDeps } from '../app/delivery/queue-delivery';
import { RelayLogFormatter } from './log-format';

/**
 * The delivery function's wiring in Lambda: the destinations from the config, their signing secrets read
 * by reference (Secrets Manager, cached; every value read is added to the log scrubber), the DynamoDB
 * delivery log and the one destination state store (the management API's), the SQS retry queue.
 */
export async function lambdaDeliveryDeps(): Promise<Omit<QueueDeliveryDeps, 'remainingMs'>> {
  const serviceName = 'relay-delivery';
  const logger = new Logger({
    serviceName,
    logLevel: (process.env.LOG_LEVEL as 'INFO') ?? 'INFO',
    logFormatter: new RelayLogFormatter(),
  });
  startTracing({ serviceName, warn: (message) => logger.warn(message) });
  const readSecret = sharedSecretReader();
  // No account secret: this function only needs the destinations (and their signing secrets, below).
  const config = await loadConfig(process.env, undefined, {
    readSecret,
    secretKinds: FUNCTION_SECRET_KINDS.delivery ?? [],
  });
  const configScrub = secretScrubber(config);
  // The signing secrets read so far (Secrets Manager's cache re-reads them every 5 minutes): all scrubbed.
  const signingSecrets = new Set<string>();
  let signingScrub = createScrubber([]);
  const scrub = (text: string) => signingScrub(configScrub(text));
  const { doc } = createDynamoClients();
  const tableName = requireEnv('TABLE_NAME');
  const resolveRef = secretRefResolver({ runtime: 'aws', readSecret });
  const metrics = new PowertoolsRelayMetrics();
  useInvocationMetrics(metrics);
  // The destination types' ports: HTTP for webhooks, SQS and STS for queues in partners' accounts.
  const sender = new HttpWebhookSender();
  const io: DestinationIo = {
    http: sender,
    queues: sqsPartnerQueues(),
    roles: stsRoleAssumer(),
    now: () => systemClock.now(),
  };
  const problems = destinationProblems(config.destinations, { runtime: 'aws', io });
  if (problems.length) throw new ConfigError(`Invalid relay config:\n${problems.join('\n')}`);

  return {
    destinations: config.destinations,
    secretsOf: async (destination) => {
      const secrets = await signingSecretsOf(config.destinations[destination]!, readSecret);
      if (secrets.some((s) => !signingSecrets.has(s))) {
        for (const secret of secrets) signingSecrets.add(secret);
        signingScrub = createScrubber([...signingSecrets]);
      }
      return secrets;
    },
    sender,
    deliverers: createDeliverers(io),
    log: new DynamoDeliveryLog(doc, { tableName, retentionDays: config.retention.transactionDays }),
    // The management API's store (pause, resume, rotation), read through a 5-second cache per function.
    states: new DynamoDestinationStateStore(doc, { tableName, cacheMs: DESTINATION_STATE_CACHE_MS }),
    // A rotated-in secret, by its reference (the function may read <prefix>webhooks/<destination>/…).
    resolveSecret: async (secretRef) => {
      const secret = await resolveRef(secretRef);
      if (!signingSecrets.has(secret)) {
        signingSecrets.add(secret);
        signingScrub = createScrubber([...signingSecrets]);
      }
      return secret;
    },
    queue: sqsDeliveryQueue(createSqsBufferClient()),
    clock: systemClock,
    scrub,
    logger: scrubbingLogger(logger, scrub),
    metrics,
    wait: (ms) => sleep(ms),
  };
}
