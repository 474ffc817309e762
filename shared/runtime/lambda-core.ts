import { Logger } from '@aws-lambda-powertools/logger';
import { createDynamoClients } from '../adapters/dynamodb/client';
import type { RelayStoreOptions } from '../adapters/dynamodb/transaction-store';
import { PowertoolsRelayMetrics } from '../adapters/metrics/powertools-metrics';
import { sharedSecretReader } from '../adapters/secrets/secrets-manager';
import { startTracing } from '../adapters/tracing/xray';
import { CallbackTracker, trackingCallbacks } from '../app/callbacks/callback-health';
import { type CallbackStore, systemClock } from '../app/ports';
import { RefusalSampler } from '../app/callbacks/refusal-sampler';
import { type RelayServices, scrubbingLogger } from '../app/services';
import type { CallbackConfig } from '../config/callback-config';
import { type ConfigParser, loadRefreshingWith } from '../config/loader';
import { FUNCTION_SECRET_KINDS } from '../config/secret-reader';
import { secretScrubber } from '../config/secrets';
import type { Scrubber } from '../util/redact';
import { requireEnv } from './env';
import { useInvocationMetrics, useInvocationRefresh } from './lambda-middleware';
import { RelayLogFormatter } from './log-format';

/** The DynamoDB document client the core services were wired with (for the adapters lambda.ts adds). */
export type DynamoDoc = ReturnType<typeof createDynamoClients>['doc'];

/**
 * What the Lambda wiring adds: metrics for every function, the quarantine's flood limits. `S` is the store
 * the function is wired with: the whole RelayStore, or the callback path's CallbackStore (lambda-callback.ts).
 */
export type LambdaServicesWith<
  S extends CallbackStore,
  C extends CallbackConfig = RelayServices['config'],
> = Omit<RelayServices, 'store' | 'config'> & {
  store: S;
  config: C;
  metrics: PowertoolsRelayMetrics;
  refusalSampler: RefusalSampler;
};

export type LambdaRelayServices = LambdaServicesWith<RelayServices['store']>;

/** Opens the function's store on the table (the composition roots pass the adapter they bundle). */
export type StoreOpener<S extends CallbackStore> = (doc: DynamoDoc, options: RelayStoreOptions) => S;

/**
 * What every Lambda function is wired with, once per cold start, on the store `openStore` opens (the
 * callback function takes only this, with the callback path's store, lambda-callback.ts; lambda.ts adds the
 * rest of the store, the statements and the other functions' adapters, which stay out of the callback's
 * bundle):
 * tracing started first (so every SDK client created after it, the secrets reader's included, is
 * captured), config loaded (asynchronously: the secrets this function may read come from Secrets
 * Manager, refreshed while warm) and validated,
 * failing fast with the bad key; SDK clients created; adapters wired; the logger scrubs every
 * configured secret; Powertools Metrics (EMF; namespace from POWERTOOLS_METRICS_NAMESPACE, which the
 * construct sets) flushed after every invocation by the handlers' middy chain.
 */
export async function lambdaCoreServices<S extends CallbackStore, C extends CallbackConfig>(
  serviceName: string,
  openStore: StoreOpener<S>,
  parseConfig: ConfigParser<C>,
): Promise<{ services: LambdaServicesWith<S, C>; logger: Logger; doc: DynamoDoc }> {
  const logger = new Logger({
    serviceName,
    logLevel: (process.env.LOG_LEVEL as 'INFO') ?? 'INFO',
    logFormatter: new RelayLogFormatter(),
  });
  startTracing({ serviceName, warn: (message) => logger.warn(message) });
  // Only the secret kinds this function's role may read (infra/relay/secrets.ts grants the same table);
  // a function missing from the table reads the callback secrets, so a forgotten grant fails its cold
  // start instead of leaving path secrets unset.
  const secretKinds = FUNCTION_SECRET_KINDS[serviceName.replace(/^relay-/, '')] ?? ['callback'];
  let scrubNow: Scrubber = (text) => text;
  const { config, refresh } = await loadRefreshingWith(parseConfig, process.env, undefined, {
    readSecret: sharedSecretReader(),
    secretKinds,
    onChange: (fresh) => {
      scrubNow = secretScrubber(fresh);
      logger.info('secrets refreshed: rotated values in use');
    },
    onError: (error) =>
      logger.error('secrets not refreshed: the values in use are kept', { error: scrubNow(error.message) }),
  });
  scrubNow = secretScrubber(config);
  // The scrubber follows the refreshes (old values stay in it: they were registered, never removed).
  const scrub: Scrubber = (text) => scrubNow(text);
  // Every invocation starts a refresh of the secrets when they are older than the refresh interval (not awaited).
  useInvocationRefresh(refresh);
  const { doc } = createDynamoClients();
  const table = openStore(doc, {
    tableName: requireEnv('TABLE_NAME'),
    retention: config.retention,
  });
  const metrics = new PowertoolsRelayMetrics();
  useInvocationMetrics(metrics);
  const log = scrubbingLogger(logger, scrub);
  // Every stored callback notes its account's callback health (a write per account per minute at most).
  const store = trackingCallbacks(table, new CallbackTracker(table, config, log));
  return {
    logger,
    doc,
    services: {
      config,
      store,
      clock: systemClock,
      log,
      scrub,
      metrics,
      // Per process: a flood of refusals costs bounded writes (shared/app/callbacks/refusal-sampler.ts).
      refusalSampler: new RefusalSampler(),
    },
  };
}
