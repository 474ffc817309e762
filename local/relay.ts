import type { IncomingMessage } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { StatementLedger } from '../shared/app/statements/statement-sink';
import { wordPressBadgeApi } from '../shared/adapters/badges/wordpress-badge-api';
import type { AddressInfo } from 'node:net';
import { createCallbackHandler } from '../functions/callback/handler';
import { createManagementHandler } from '../functions/management/handler';
import { createOutboxPublisher } from '../functions/outbox-publisher/handler';
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { createDynamoClients } from '../shared/adapters/dynamodb/client';
import { DynamoRelayStore, type RelayStoreOptions } from '../shared/adapters/dynamodb/relay-store';
import { ensureTable } from '../shared/adapters/dynamodb/setup';
import { FileEventSink } from '../shared/adapters/events/file-sink';
import { sharedSecretReader } from '../shared/adapters/secrets/secrets-manager';
import { CallbackTracker, trackingCallbacks } from '../shared/app/callbacks/callback-health';
import { DynamoStatementStore } from '../shared/adapters/dynamodb/statement-store';
import type { StatementStore } from '../shared/app/statements/statement-store';
import type { RelayConfig } from '../shared/config/schema';
import type { Clock, EventSink, RelayLogger, RelayMetrics } from '../shared/app/ports';
import { noMetrics, systemClock } from '../shared/app/ports';
import type { ReconcileServices } from '../shared/app/reconciliation/reconcile';
import { statusApiRegistry } from '../shared/app/reconciliation/status-apis';
import { type RelayLimits, type RelayServices, scrubbingLogger } from '../shared/app/services';
import { secretScrubber } from '../shared/config/secrets';
import { recordAuditAfter } from '../shared/app/operations/audit';
import { recordRejection } from '../shared/app/callbacks/quarantine';
import type { RelayError } from '../shared/domain/errors';
import { toInboundRequest } from '../shared/http/api-gateway';
import { statusFor } from '../shared/http/error-mapping';
import { lambdaContext, toApiGatewayEvent } from './lambda-adapter';
import { consoleSite } from './console-site';
import { consoleEventStream, TransactionChangeFeed } from './console-events';
import { DynamoDeliveryLog } from '../shared/adapters/dynamodb/delivery-log';
import { DynamoDestinationStateStore } from '../shared/adapters/dynamodb/destination-state-store';
import { type DeliveryAdmin, secretRefResolver } from '../shared/app/delivery/destinations-admin';
import { sqsPartnerQueues } from '../shared/adapters/sqs/partner-queue';
import { HttpWebhookSender } from '../shared/adapters/webhooks/http-sender';
import { DeliveryEngine } from '../shared/app/delivery/engine';
import { timerScheduler } from '../shared/app/delivery/ports';
import { deliveringSink } from '../shared/app/delivery/sink';
import { changedTransaction } from '../shared/adapters/dynamodb/stream';
import { toSummary } from '../shared/app/console/console-query';
import { createLocalServer, describeTableCheck, type LocalServer, readinessOf } from './server';
import type { LocalRefusalRecorder } from './refused-request';
import { STOP_WAIT_MS, untilDone } from './shutdown';
import { FileIngressBuffer, LocalBufferDrainer } from './file-ingress-buffer';
import { LocalDayCloser } from './day-closer';
import { LocalPoller } from './poller';
import { applyStoredCallbacksAtStart } from './stored-callbacks';
import { LocalStreamPump } from './stream-pump';

/** Connections of the management API's client to DynamoDB Local, at most. */
const MANAGEMENT_SOCKETS = 4; // 8 still gave the callbacks a 2.3× p99 with 25 consoles in the bench
/** Per request of the management API's client, waiting for one of its connections included. */
const MANAGEMENT_REQUEST_TIMEOUT_MS = 10_000;

/** How long one counts answer serves the same question again (every open console asks it). */
const SHARED_COUNTS_MS = 5000;

type ManagementLambda = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * GET /v1/transactions/counts asked again with the same query and token within SHARED_COUNTS_MS gets the
 * same answer (while it is read, and for that time after): 25 consoles refreshing the same counts cost
 * one read, not 25. Only 200 answers are kept; at most 100 questions at once.
 */
function sharedCounts(handler: ManagementLambda): ManagementLambda {
  const recent = new Map<string, { at: number; answer: Promise<APIGatewayProxyStructuredResultV2> }>();
  return (event, context) => {
    if (event.requestContext.http.method !== 'GET' || event.rawPath !== '/v1/transactions/counts')
      return handler(event, context);
    const now = Date.now();
    for (const [key, entry] of recent) if (now - entry.at > SHARED_COUNTS_MS) recent.delete(key);
    const key = `${event.rawQueryString}\n${event.headers.authorization ?? ''}`;
    const kept = recent.get(key);
    if (kept) return kept.answer;
    const answer = handler(event, context);
    if (recent.size < 100) recent.set(key, { at: now, answer });
    answer.then(
      (result) => result.statusCode !== 200 && recent.delete(key),
      () => recent.delete(key),
    );
    return answer;
  };
}

export interface LocalRelayOptions {
  config: RelayConfig;
  dynamoEndpoint: string;
  tableName: string;
  /** 0 picks a free port. */
  port: number;
  host?: string;
  log: RelayLogger;
  /** Where events go; defaults to the JSON-lines file of config.local.eventsFile. */
  sink?: EventSink;
  printEvent?: (line: string) => void;
  clock?: Clock;
  streamPollMs?: number;
  /**
   * The store's per-request timeout (default 1.5 s, the Lambda budget). Tests of what the relay does,
   * not of how fast DynamoDB Local answers on a busy machine, give it longer.
   */
  dynamoRequestTimeoutMs?: number;
  /** Event streams served at once (the console's live feed). @default MAX_EVENT_STREAMS */
  maxEventStreams?: number;
  /** Bench hook: DynamoDB capacity consumed by every store operation. */
  onConsumedCapacity?: RelayStoreOptions['onConsumedCapacity'];
  /** Run the reconciliation poller on its interval (default true); tests may drive it by hand. */
  poller?: boolean;
  /**
   * Run the scheduled close at start and on its interval (default: whenever the poller runs, as under
   * `npm start`); a test that does not look at closed days leaves it off (startTestRelay).
   */
  dayCloser?: boolean;
  metrics?: RelayMetrics;
  /** For the status API clients (tests inject one); the global fetch by default. */
  fetchImpl?: typeof fetch;
  /**
   * Spool directory of the local ingress buffer (`npm start`: `.relay/ingress-buffer`): callbacks the
   * store cannot take are kept there and applied once it answers. Absent: no buffer (503 as before).
   */
  ingressBufferDir?: string;
  /** How often the buffer is drained. @default 1000 */
  bufferDrainMs?: number;
  /** Lines about buffering and draining (npm start prints them). */
  printBuffer?: (line: string) => void;
  /** Limits a test lowers (RelayServices.limits); absent: the production values. */
  limits?: RelayLimits;
  /**
   * Where `env:NAME` secret references are read (a destination's rotation): this process's environment
   * by default. A test passes its own, leaving process.env to the other files of its worker.
   */
  env?: (name: string) => string | undefined;
}

/**
 * A wrong token on the console's event stream is recorded as on any management route: an audit log entry
 * (a refused sign-in), without the token (the query string and Authorization are not kept).
 */
export function streamRefusalRecorder(
  services: RelayServices,
  trustForwardedFor: boolean,
): (request: IncomingMessage, error: RelayError) => Promise<void> {
  return async (request, error) => {
    const inbound = toInboundRequest(toApiGatewayEvent(request, Buffer.alloc(0), { trustForwardedFor }));
    await recordAuditAfter(services, {
      actor: null,
      action: 'sign-in',
      target: null,
      outcome: 'refused',
      httpStatus: statusFor(error),
      detail: `${error.code}: ${error.message}`,
      request: inbound,
    });
  };
}

/**
 * The local server's own refusals (bytes Node could not parse, a request over API Gateway's quotas) are
 * quarantined as the callback function quarantines its refusals: scrubbed, without a CallbackRejected (no
 * configured account is known to be aimed at), listed in the console's quarantine view.
 */
export function localRefusalRecorder(
  services: Pick<RelayServices, 'store' | 'log' | 'scrub' | 'metrics'>,
): LocalRefusalRecorder {
  return async (request, error) => {
    await recordRejection(services, request, error, { emitEvent: false, httpStatus: statusFor(error) });
  };
}

export interface LocalRelay {
  url: string;
  port: number;
  store: DynamoRelayStore;
  services: ReconcileServices;
  pump: LocalStreamPump;
  poller: LocalPoller;
  /** Closes the due business days on a timer (started with the poller). */
  dayCloser: LocalDayCloser;
  /** The provider's own records (docs/statements.md): what a close on another clock reads. */
  statements: StatementStore;
  /** Present when ingressBufferDir was given. */
  buffer?: { store: FileIngressBuffer; drainer: LocalBufferDrainer };
  /** Console event streams open right now (a browser test checks a view it left closed its own). */
  openEventStreams(): number;
  /**
   * Stops in order (docs/configuration.md#stopping): no new request; the poller, the day closer and the
   * buffer drainer stopped; the requests, the cycle, the stream pump's batch and the webhook attempts in
   * flight awaited (at most STOP_WAIT_MS, less when `hurry` aborts); then DynamoDB is closed: from then on
   * no call of the relay's reaches it. Called again, it is the same stop (its `hurry` still hurries it).
   */
  stop(options?: { hurry?: AbortSignal }): Promise<void>;
}

/** Thrown by a DynamoDB call made after the relay's stop closed the store (a write after stop is a bug). */
class RelayStoppedError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RelayStoppedError';
  }
}

/** Makes every call of `client` (and of the document clients over it) fail once `closed()` says so. */
function refuseOnceClosed(client: Pick<DynamoDBClient, 'middlewareStack'>, closed: () => boolean): void {
  client.middlewareStack.add(
    (next, context) => async (args) => {
      if (closed())
        throw new RelayStoppedError(`relay stopped: DynamoDB ${context.commandName ?? 'call'} not made`);
      return next(args);
    },
    { step: 'initialize', name: 'refuseOnceRelayStopped', override: true },
  );
}

/**
 * The whole relay in one process, wired exactly like the cloud: the Lambda handlers behind an HTTP
 * server, DynamoDB (Local) as the store, its stream feeding the outbox publisher.
 */
export async function startLocalRelay(options: LocalRelayOptions): Promise<LocalRelay> {
  const { config, log } = options;
  const { client, doc } = createDynamoClients({
    endpoint: options.dynamoEndpoint,
    ...(options.dynamoRequestTimeoutMs ? { requestTimeoutMs: options.dynamoRequestTimeoutMs } : {}),
  });
  // Creating the table on a JVM that just started can take seconds on a busy machine: setup gets its own
  // patient client, while the relay's keeps the short timeouts that bound a callback's ack.
  const setup = createDynamoClients({ endpoint: options.dynamoEndpoint, requestTimeoutMs: 30_000 });
  try {
    await ensureTable(setup.client, options.tableName);
  } finally {
    setup.client.destroy();
  }
  // The management API's own client, as in the cloud where it runs in a Lambda of its own: its reads
  // never take the sockets a callback's write waits for (one pool of 50 shared with 25 polling streams
  // answered callbacks 503), and at most MANAGEMENT_SOCKETS of them reach DynamoDB Local at once. Not on
  // an ack's budget, its requests may wait longer for a socket.
  const managementClients = createDynamoClients({
    endpoint: options.dynamoEndpoint,
    requestTimeoutMs: options.dynamoRequestTimeoutMs ?? MANAGEMENT_REQUEST_TIMEOUT_MS,
    maxSockets: MANAGEMENT_SOCKETS,
  });
  // Set by stop() once the work in flight is over (or no longer waited for): nothing reaches DynamoDB after it.
  let closed = false;
  refuseOnceClosed(client, () => closed);
  refuseOnceClosed(managementClients.client, () => closed);
  const clock = options.clock ?? systemClock;
  const storeOptions: RelayStoreOptions = {
    tableName: options.tableName,
    retention: config.retention,
    shards: config.reconciliation.shards,
    onConsumedCapacity: options.onConsumedCapacity,
  };
  const store = new DynamoRelayStore(doc, storeOptions);
  const scrub = secretScrubber(config);
  const relayLog = scrubbingLogger(log, scrub);
  const tracker = new CallbackTracker(store, config, relayLog);
  const base: RelayServices = {
    config,
    // Every stored callback notes its account's callback health, as in AWS (shared/runtime/lambda.ts).
    store: trackingCallbacks(store, tracker),
    clock,
    log: relayLog,
    scrub,
    ...(options.fetchImpl ? { fetchImpl: options.fetchImpl } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
  };
  const fileBuffer = options.ingressBufferDir
    ? new FileIngressBuffer(options.ingressBufferDir, options.printBuffer)
    : undefined;
  const statementStore = new DynamoStatementStore(managementClients.doc, {
    tableName: options.tableName,
    retentionDays: config.retention.transactionDays,
  });
  const services: ReconcileServices = {
    ...base,
    // The pull and balance cycles hand the provider's own records to the one statement ledger.
    statementSink: new StatementLedger({ ...base, statements: statementStore }),
    statusApi: statusApiRegistry(base),
    // Badge shops' secretId, as in AWS (only read when a shop names one).
    readSecret: sharedSecretReader(),
    badgeApi: wordPressBadgeApi({ fetchImpl: options.fetchImpl, readSecret: sharedSecretReader() }),
    metrics: options.metrics ?? noMetrics,
    ...(fileBuffer ? { ingressBuffer: fileBuffer } : {}),
  };
  const callback = createCallbackHandler(services);
  // Webhook destinations (docs/webhooks.md): the engine AWS runs, fed from this process's event stream;
  // its log and the destinations' states in the relay table, where the management API reads them.
  const deliveryLog = new DynamoDeliveryLog(doc, {
    tableName: options.tableName,
    retentionDays: config.retention.transactionDays,
  });
  const destinationStates = new DynamoDestinationStateStore(doc, { tableName: options.tableName });
  const resolveSecret = secretRefResolver({
    runtime: 'local',
    env: options.env ?? ((name) => process.env[name]),
    readSecret: sharedSecretReader(),
  });
  const deliveries = Object.keys(config.destinations).length
    ? new DeliveryEngine({
        destinations: config.destinations,
        secretsOf: (name) => config.destinations[name]!.signingSecrets,
        sender: new HttpWebhookSender(),
        // An sqs destination under npm start goes to its endpointUrl (an emulator), or is refused at start.
        io: { queues: sqsPartnerQueues() },
        log: deliveryLog,
        states: destinationStates,
        resolveSecret,
        clock,
        scheduler: timerScheduler,
        scrub,
        runtime: 'local',
        // The DestinationDisabled event is in the state item's outbox (published by the stream pump, as in
        // AWS, not back to the destinations: the filter drops it); this is the operator's log line.
        onDisabled: (destination, reason) => {
          relayLog.warn('webhook destination disabled', { destination, reason });
        },
        logger: relayLog,
      })
    : undefined;
  const deliveryAdmin: DeliveryAdmin = {
    destinations: config.destinations,
    log: new DynamoDeliveryLog(managementClients.doc, {
      tableName: options.tableName,
      retentionDays: config.retention.transactionDays,
    }),
    states: new DynamoDestinationStateStore(managementClients.doc, { tableName: options.tableName }),
    resolveSecret,
    ...(deliveries
      ? {
          replay: (destination, selector, replayOptions) =>
            deliveries.replay(destination, selector, replayOptions),
          onResumed: (destination) => deliveries.wake(destination),
        }
      : {}),
  };
  const managementStore = new DynamoRelayStore(managementClients.doc, storeOptions);
  const management = sharedCounts(
    createManagementHandler({
      ...services,
      store: trackingCallbacks(managementStore, tracker),
      statements: statementStore,
      deliveries: deliveryAdmin,
    }),
  );
  const sink =
    options.sink ?? new FileEventSink(config.local.eventsFile, config.events.source, options.printEvent);
  const publisher = createOutboxPublisher({
    sink: deliveries ? deliveringSink(sink, deliveries) : sink,
    log,
  });
  const pump = new LocalStreamPump(
    client,
    options.dynamoEndpoint,
    options.tableName,
    (event) => publisher(event, lambdaContext('relay-outbox-publisher')),
    log,
    options.streamPollMs,
  );
  // Both clients that write the table wake the pump (docs/development.md#local-relay): an idle relay polls
  // its stream every IDLE_POLL_MS, and what it writes is still read within streamPollMs.
  pump.wakeOnWrites(client);
  pump.wakeOnWrites(managementClients.client);
  // The console's live feed: what the pump reads, fanned out to every open event stream (no store read).
  const feed = new TransactionChangeFeed(options.maxEventStreams);
  pump.watch((records) => {
    for (const record of records) {
      const changed = changedTransaction(record);
      if (changed) feed.publish(toSummary(changed));
    }
  });
  await pump.start();
  // Callbacks the previous run stored but did not apply (it stopped in between), once, before any new one.
  await applyStoredCallbacksAtStart(services, doc, options.tableName);
  const poller = new LocalPoller(services, config.reconciliation.pollIntervalSeconds * 1000);
  if (options.poller !== false) poller.start();
  const dayCloser = new LocalDayCloser({
    ...services,
    statements: statementStore,
    metrics: services.metrics ?? noMetrics,
  });
  if (options.poller !== false && options.dayCloser !== false) dayCloser.start();
  const drainer = fileBuffer
    ? new LocalBufferDrainer(services, fileBuffer, options.bufferDrainMs ?? 1000, options.printBuffer)
    : undefined;
  drainer?.start();

  const server: LocalServer = createLocalServer({
    callback,
    management,
    trustForwardedFor: config.local.trustForwardedFor,
    ready: readinessOf({ dynamodb: describeTableCheck(client, options.tableName) }),
    site: consoleSite(),
    events: consoleEventStream({
      config,
      feed,
      refused: streamRefusalRecorder(services, config.local.trustForwardedFor),
    }),
    refused: localRefusalRecorder(services),
    health: async () => ({
      status: 'ok',
      dynamodb: options.dynamoEndpoint,
      table: options.tableName,
      accounts: config.accounts.size,
      // Not a secret, and what `npm run sim` waits on to read the events of what it just did.
      stream: { caughtUpAt: pump.caughtUpAt ?? null },
    }),
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  const hurry = new AbortController();
  let stopping: Promise<void> | undefined;
  const stopInOrder = async () => {
    const deadline = setTimeout(() => hurry.abort(), STOP_WAIT_MS);
    deadline.unref();
    try {
      // Loops first told to stop (each awaits its own work in flight), beside the requests being answered.
      const loops = Promise.all([poller.stop(), dayCloser.stop(), drainer?.stop()]);
      await Promise.all([server.shutdown(hurry.signal), untilDone(loops, hurry.signal)]);
      // The pump after them (their writes are its records), the engine after the pump (it feeds the engine).
      await untilDone(pump.stop(), hurry.signal);
      await deliveries?.stop(hurry.signal);
    } finally {
      clearTimeout(deadline);
      closed = true;
      client.destroy();
      managementClients.client.destroy();
    }
  };
  return {
    url: `http://localhost:${port}`,
    port,
    store,
    services,
    pump,
    poller,
    dayCloser,
    statements: statementStore,
    ...(fileBuffer && drainer ? { buffer: { store: fileBuffer, drainer } } : {}),
    openEventStreams: () => feed.streams,
    stop: (stopOptions = {}) => {
      if (stopOptions.hurry) stopOptions.hurry.addEventListener('abort', () => hurry.abort(), { once: true });
      if (stopOptions.hurry?.aborted) hurry.abort();
      stopping ??= stopInOrder();
      return stopping;
    },
  };
}
