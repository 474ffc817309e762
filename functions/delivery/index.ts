import { setTimeout as sleep } from 'node:timers/promises';
import { Logger } from '@aws-lambda-powertools/logger';
import { createDynamoClients } from '../../shared/adapters/dynamodb/client';
import { DynamoDeliveryLog } from '../../shared/adapters/dynamodb/delivery-log';
import { DynamoDestinationStates } from '../../shared/adapters/dynamodb/destination-states';
import { PowertoolsRelayMetrics } from '../../shared/adapters/metrics/powertools-metrics';
import { sharedSecretReader } from '../../shared/adapters/secrets/secrets-manager';
import { createSqsBufferClient } from '../../shared/adapters/sqs/sqs-ingress-buffer';
import { sqsDeliveryQueue } from '../../shared/adapters/sqs/sqs-delivery-queue';
import { startTracing } from '../../shared/adapters/tracing/xray';
import { HttpWebhookSender } from '../../shared/adapters/webhooks/http-sender';
import { signingSecretsOf } from '../../shared/app/delivery/signing-secrets';
import { systemClock } from '../../shared/app/ports';
import { scrubbingLogger } from '../../shared/app/services';
import { loadConfig } from '../../shared/config/load';
import { FUNCTION_SECRET_KINDS } from '../../shared/config/secret-reader';
import { secretScrubber } from '../../shared/config/secrets';
import { createScrubber } from '../../shared/util/redact';
import { lambdaMiddlewares, useInvocationMetrics } from '../../shared/runtime/lambda-middleware';
import { requireEnv } from '../../shared/runtime/env';
import { createDeliveryHandler } from './handler';

const serviceName = 'relay-delivery';
const logger = new Logger({ serviceName, logLevel: (process.env.LOG_LEVEL as 'INFO') ?? 'INFO' });
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
const metrics = new PowertoolsRelayMetrics();
useInvocationMetrics(metrics);

export const handler = createDeliveryHandler({
  destinations: config.destinations,
  secretsOf: async (destination) => {
    const secrets = await signingSecretsOf(config.destinations[destination]!, readSecret);
    if (secrets.some((s) => !signingSecrets.has(s))) {
      for (const secret of secrets) signingSecrets.add(secret);
      signingScrub = createScrubber([...signingSecrets]);
    }
    return secrets;
  },
  sender: new HttpWebhookSender(),
  log: new DynamoDeliveryLog(doc, { tableName, retentionDays: config.retention.transactionDays }),
  states: new DynamoDestinationStates(doc, { tableName }),
  queue: sqsDeliveryQueue(createSqsBufferClient()),
  clock: systemClock,
  scrub,
  logger: scrubbingLogger(logger, scrub),
  metrics,
  wait: (ms) => sleep(ms),
}).use(lambdaMiddlewares());
