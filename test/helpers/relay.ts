import { type LocalRelay, type LocalRelayOptions, startLocalRelay } from '../../local/relay';
import { IDLE_POLL_MS, PollPacer } from '../../local/stream-pump';
import { parseConfig } from '../../shared/config/load';
import type { RelayConfig } from '../../shared/config/relay-config';
import type { EventEnvelope } from '../../shared/domain/events';
import { FileEventSink } from '../../shared/adapters/events/file-sink';
import type { EventSink, RelayLogger } from '../../shared/app/ports';
import type { AckBudget } from '../../shared/providers/types';
import { PROVIDERS } from '../../shared/providers/registry';
import { dynamoEndpoint, testTableName } from './dynamo';

export const ADMIN_TOKEN = 'test-admin-token';
/** Who acts with the shared ADMIN_TOKEN: a person's action with it names them (X-Relay-Actor). */
export const ADMIN_ACTOR = 'ada';
/** The shared admin token with the person acting (docs/roles-and-audit.md#the-shared-token). */
export const ADMIN_HEADERS: Readonly<Record<string, string>> = {
  authorization: `Bearer ${ADMIN_TOKEN}`,
  'x-relay-actor': ADMIN_ACTOR,
};

export class CollectingSink implements EventSink {
  readonly events: EventEnvelope[] = [];
  async publish(events: readonly EventEnvelope[]): Promise<void> {
    this.events.push(...events);
  }
  ofType(type: string): EventEnvelope[] {
    return this.events.filter((e) => e.metadata.type === type);
  }
}

export const silentLogger: RelayLogger = { debug() {}, info() {}, warn() {}, error() {} };

/**
 * Every provider's ack budget in a test's relay. Without an ingress buffer (a test relay has none), a
 * callback the store has not written within its provider's `ackMs` (MoMo's and Airtel's 1.8 s) is cut
 * and answered 503 STORAGE_UNAVAILABLE, as documented (docs/ingress-buffer.md): DynamoDB Local on two
 * loaded cores took that long, and a signed Airtel callback in test/hostile/hostile-input was answered
 * 503. Tests of what the relay does, not of how fast DynamoDB Local answers (like the store's request
 * timeout below), get a budget a busy machine does not reach (the schema's ceiling is 30 s); a test of
 * the budget itself names its provider's in the config, and that one wins.
 */
const PATIENT_ACK_BUDGET: AckBudget = { storeMs: 25_000, ackMs: 29_000 };

/** `ackBudgets` with PATIENT_ACK_BUDGET for each provider `given` (raw or parsed config) does not name. */
export function patientAckBudgets<T>(given: Record<string, T> = {}): Record<string, AckBudget | T> {
  return { ...Object.fromEntries(PROVIDERS.map((p) => [p.id, PATIENT_ACK_BUDGET])), ...given };
}

export interface TestRelay extends LocalRelay {
  /** The configuration the relay runs with: the test's, with the test relay's defaults under it. */
  config: RelayConfig;
  sink: CollectingSink;
  /** Publishes everything written so far (one stream pass) and returns the collected events. */
  flush(): Promise<EventEnvelope[]>;
  request(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ status: number; body: any; headers: Headers }>;
  admin(
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: any; headers: Headers }>;
}

export interface TestRelayOptions {
  /** Listen here instead of a free port (when the config must name the relay's own URL). */
  port?: number;
  /** Also append the events to this JSON-lines file, as `npm start` does. */
  eventsFile?: string;
  /** Limits lowered (LocalRelayOptions.limits): a flood test reaches past one with a few dozen requests. */
  limits?: LocalRelayOptions['limits'];
  /** Where `env:NAME` secret references are read (LocalRelayOptions.env). */
  env?: LocalRelayOptions['env'];
  /** Run the scheduled close at start and on its timer, as `npm start` does (off by default: DAY_CLOSER). */
  dayCloser?: boolean;
}

/**
 * Test relays run no scheduled close unless the test asks (LocalRelayOptions.dayCloser): a relay's close
 * at start reads every account's catch-up days (the marker, then the by-day shards and the account-day
 * index of each day: about 40 requests for the test config), which the files that look at closed days
 * drive themselves (closeDueDays, a relay's dayCloser.runOnce()). Measured over the dynamodb lane: about
 * 5,700 of its 43,000 DynamoDB Local requests were those closes.
 */
const DAY_CLOSER = false;

/**
 * Test relays spread their index entries over 2 shards (reconciliation.shards) unless the test names a
 * count, not the default 4: every read that fans out over the shards (the due index each poller tick, a
 * console list or a close per day) still merges more than one, at half the queries. Counted at the store's
 * client over the dynamodb lane (stream reads not included): those fan-out queries were about 12,000 of
 * its 36,000 requests.
 */
const TEST_RELAY_SHARDS = 2;

/**
 * How the test relay's stream pump is polled: by the helper (drivePump), not on the pump's own timer,
 * which gets an interval no test outlives.
 */
const PUMP_OWN_TIMER_MS = 3_600_000;
/**
 * The test relay's pump pace: 200 ms after a poll that read records or a write this process made
 * (LocalStreamPump.onWrite), backing off, doubling, to the pump's IDLE_POLL_MS while nothing is written.
 * Polling every 50 ms whatever happens cost an idle relay about 0.16 s of CPU a second (its process and
 * DynamoDB Local's, measured), and every 400 ms still 39 ms: a test file's relays are idle most of their
 * life. A test that needs what was written published now calls flush(), which polls at once; one that
 * waits for an event (waitFor, eventually) sees what the relay wrote within 200 ms, and what another
 * process wrote (a script) within IDLE_POLL_MS.
 */
const PUMP_PACE = { busyMs: 200, idleMs: IDLE_POLL_MS };

/** Polls `pump` at PUMP_PACE, woken by its writes, until the returned stop() is called. */
function drivePump(pump: Pick<LocalRelay['pump'], 'poll' | 'onWrite'>): { stop(): Promise<void> } {
  // A failed poll (the store unreachable) is paced like an empty one; flush() callers see the error.
  const pacer = new PollPacer(() => pump.poll(), PUMP_PACE);
  const unsubscribe = pump.onWrite(() => pacer.wake());
  pacer.start();
  return {
    async stop() {
      unsubscribe();
      await pacer.stop();
    },
  };
}

/** The phone-number search key of a test relay, as the demo config has one (search by full number needs it). */
export const TEST_SEARCH_KEY = 'test-relay-search-key-0123456789abcdef';

/** The real local relay (HTTP server + handlers + DynamoDB Local + stream pump) on a free port. */
export async function startTestRelay(
  rawConfig: Record<string, unknown>,
  options: TestRelayOptions = {},
): Promise<TestRelay> {
  const config = parseConfig({
    management: { auth: 'bearer', bearerToken: ADMIN_TOKEN, searchKey: TEST_SEARCH_KEY },
    ...rawConfig,
    ackBudgets: patientAckBudgets(rawConfig.ackBudgets as Record<string, unknown> | undefined),
    reconciliation: { shards: TEST_RELAY_SHARDS, ...(rawConfig.reconciliation as object | undefined) },
  });
  const sink = new CollectingSink();
  const file = options.eventsFile ? new FileEventSink(options.eventsFile, config.events.source) : undefined;
  const relay = await startLocalRelay({
    config,
    dynamoEndpoint: dynamoEndpoint(),
    dynamoRequestTimeoutMs: 15_000,
    tableName: testTableName('e2e'),
    port: options.port ?? 0,
    log: silentLogger,
    sink: file
      ? {
          async publish(events) {
            await file.publish(events);
            await sink.publish(events);
          },
        }
      : sink,
    streamPollMs: PUMP_OWN_TIMER_MS,
    limits: options.limits,
    env: options.env,
    dayCloser: options.dayCloser ?? DAY_CLOSER,
  });
  const driver = drivePump(relay.pump);
  const request: TestRelay['request'] = async (method, path, body, headers = {}) => {
    const init: RequestInit = { method, headers: { ...headers } };
    if (body !== undefined) {
      init.body =
        typeof body === 'string' || body instanceof Uint8Array ? (body as string) : JSON.stringify(body);
      (init.headers as Record<string, string>)['content-type'] ??= 'application/json';
    }
    const response = await fetch(`${relay.url}${path}`, init);
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // leave as text
    }
    return { status: response.status, body: parsed, headers: response.headers };
  };
  return {
    ...relay,
    config,
    async stop() {
      await driver.stop();
      await relay.stop();
    },
    sink,
    async flush() {
      // Two passes: a write made while the first pass ran is picked up by the second.
      await relay.pump.poll();
      await relay.pump.poll();
      return sink.events;
    },
    request,
    admin: (method, path, body) => request(method, path, body, ADMIN_HEADERS),
  };
}
