import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../local/dynamodb-local';
import { simulatorApiSettings, simulatorWiring } from '../../local/simulator-wiring';
import type { SimContext } from '../../scripts/sim/core';
import { type EventFeed, eventLine } from '../../scripts/sim/events';
import { parseConfig } from '../../shared/config/load';
import type { RelayConfig } from '../../shared/config/schema';
import { createSimulator, type Simulator } from '../../simulator/server';
import { ROOT } from './child-process';
import { ADMIN_TOKEN, startTestRelay, type TestRelay, type TestRelayOptions } from './relay';

type SimulatorOptions = NonNullable<Parameters<typeof createSimulator>[0]>;

/**
 * The demo config (local/demo-config.json) on this relay's URL and events file, the management bearer
 * token of the tests, and every account's status API pointed at the simulator. `edit` changes the demo
 * accounts first (the simulator's URL at hand); `reconciliation` replaces the reconciliation settings.
 */
export function simulatedDemoConfig(
  relayUrl: string,
  simUrl: string,
  options: {
    eventsFile: string;
    reconciliation: Record<string, unknown>;
    edit?: (demo: any, simUrl: string) => void;
  },
): Record<string, unknown> {
  const demo = JSON.parse(readFileSync(join(ROOT, 'local/demo-config.json'), 'utf8'));
  demo.management = { auth: 'bearer', bearerToken: ADMIN_TOKEN };
  options.edit?.(demo, simUrl);
  const withApis = parseConfig({ ...demo, publicBaseUrl: relayUrl });
  for (const account of withApis.accounts.values())
    demo.accounts[account.provider][account.id].api = simulatorApiSettings(withApis, account, simUrl);
  return {
    ...demo,
    publicBaseUrl: relayUrl,
    local: { ...demo.local, eventsFile: options.eventsFile },
    reconciliation: options.reconciliation,
  };
}

export interface RelayWithSimulator {
  relay: TestRelay;
  sim: Simulator;
  config: RelayConfig;
  raw: Record<string, unknown>;
}

/**
 * A test relay and the simulator wired to it. The relay's port is chosen first, because its public base
 * URL (the callback URLs the simulator calls) must name it; a port taken meanwhile is tried again.
 */
export async function startRelayWithSimulator(options: {
  eventsFile: string;
  configFor: (relayUrl: string, simUrl: string) => Record<string, unknown>;
  simulator?: (wired: SimulatorOptions) => SimulatorOptions;
  /** The relay's limits lowered (TestRelayOptions.limits). */
  limits?: TestRelayOptions['limits'];
  /** Where `env:NAME` secret references are read (TestRelayOptions.env). */
  env?: TestRelayOptions['env'];
}): Promise<RelayWithSimulator> {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const relayUrl = `http://localhost:${port}`;
    // The wiring reads accounts only; the status API URLs are settled once the simulator has its port.
    const wiring = simulatorWiring(relayUrl, parseConfig(options.configFor(relayUrl, 'http://127.0.0.1:1')));
    const wired: SimulatorOptions = {
      ...wiring.options,
      timeScale: 0.01,
      approvalDelayMs: 50,
      log: () => {},
    };
    const sim = await createSimulator(options.simulator ? options.simulator(wired) : wired);
    const raw = options.configFor(relayUrl, sim.url);
    let relay: TestRelay;
    try {
      relay = await startTestRelay(raw, {
        port,
        eventsFile: options.eventsFile,
        limits: options.limits,
        env: options.env,
      });
    } catch (error) {
      await sim.close();
      if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE' && attempt < 3) continue;
      throw error;
    }
    await wiring.setup(sim.url);
    return { relay, sim, config: parseConfig(raw), raw };
  }
}

/** The poller on simulated time: a hundredth of real time, a poll cycle every 0.2 s. */
const SCALED_POLLER = { timeScale: 0.01, pollIntervalSeconds: 0.2 };

export interface DemoWithSimulator extends RelayWithSimulator {
  eventsFile: string;
  /** Closes the simulator, then stops the relay. */
  stop(): Promise<void>;
}

/**
 * The demo relay (simulatedDemoConfig) and the simulator wired to it, its events file in a fresh temporary
 * folder named after `name`, its poller on simulated time (SCALED_POLLER; `reconciliation` adds to it or
 * replaces its settings); `edit` changes the demo accounts first.
 */
export async function startDemoWithSimulator(
  name: string,
  options: { reconciliation?: Record<string, unknown>; edit?: (demo: any, simUrl: string) => void } = {},
): Promise<DemoWithSimulator> {
  const eventsFile = join(mkdtempSync(join(tmpdir(), `${name}-`)), 'events.ndjson');
  const pair = await startRelayWithSimulator({
    eventsFile,
    configFor: (relayUrl, simUrl) =>
      simulatedDemoConfig(relayUrl, simUrl, {
        eventsFile,
        reconciliation: { ...SCALED_POLLER, ...options.reconciliation },
        ...(options.edit ? { edit: options.edit } : {}),
      }),
  });
  return {
    ...pair,
    eventsFile,
    stop: async () => {
      await pair.sim.close();
      await pair.relay.stop();
    },
  };
}

/**
 * How often a relay's feeds flush its stream for read() at most. A scenario reads its events every pollMs
 * while it waits; flushing (two stream polls) on every read cost each waiting scenario ~80 stream polls a
 * second, about 2 ms of DynamoDB Local CPU each. Between flushes the relay's own pump (200 ms after a
 * write or a poll that read records, up to 2 s while idle) publishes too; settle() still flushes at once.
 */
const FEED_FLUSH_MS = 250;

/** How a relay's feeds flush its stream: one pacing and one flush at a time for all of them. */
interface RelayFlusher {
  /** Flushes unless a flush ran in the last FEED_FLUSH_MS (or runs now: then waits for that one). */
  paced(): Promise<unknown>;
  /** A flush that starts after this call: everything written before it is published when it ends. */
  fresh(): Promise<unknown>;
}

/**
 * Shared by every feed of a relay. Scenarios run several at once (relay-simulator.test runs four), each
 * with its own feed: paced per feed, each flushed the stream on its own, four times the polls for the same
 * events. fresh() joins a flush that starts after it was asked for (the one queued behind a running one)
 * instead of starting its own: settles asked for while a flush runs share the next.
 */
const flushers = new WeakMap<TestRelay, RelayFlusher>();

function flusherOf(relay: TestRelay): RelayFlusher {
  const known = flushers.get(relay);
  if (known) return known;
  let running: Promise<unknown> | undefined;
  let queued: Promise<unknown> | undefined;
  // After a flush the relay's feeds rest FEED_FLUSH_MS (a timer, not a measured time) before a paced one.
  let resting = false;
  const start = () => {
    running = relay.flush().finally(() => {
      running = undefined;
      resting = true;
      setTimeout(() => (resting = false), FEED_FLUSH_MS).unref();
    });
    return running;
  };
  const flusher: RelayFlusher = {
    paced: async () => {
      if (running) return running;
      if (!resting) await start();
    },
    fresh: () => {
      if (!running) return start();
      queued ??= running
        .catch(() => undefined)
        .then(() => {
          queued = undefined;
          return running ?? start();
        });
      return queued;
    },
  };
  flushers.set(relay, flusher);
  return flusher;
}

/**
 * Every event `relay` publishes from now on (from: its sink's count then), as `npm run sim` reads its
 * feed: read() flushes the stream at most every FEED_FLUSH_MS, settle() at once (both shared by the
 * relay's feeds, flusherOf).
 */
export function relayEventFeed(relay: TestRelay, from = relay.sink.events.length): EventFeed {
  const flusher = flusherOf(relay);
  return {
    label: 'test relay',
    read: async () => {
      await flusher.paced();
      return relay.sink.events.slice(from).map((envelope) => ({ envelope, line: eventLine(envelope) }));
    },
    settle: async () => {
      await flusher.fresh();
    },
  };
}

/**
 * How often a scenario looks again while it waits (SimContext.pollMs). Once the simulator has sent
 * everything and the outcome is still to come (a status check due in seconds of simulated time), each look
 * flushes the stream and reads the transaction (several DynamoDB Local requests: the transaction, its
 * records, receipts and deliveries): every 25 ms, that was most of what a waiting scenario cost. A look
 * every 100 ms sees the outcome at most 100 ms later.
 */
export const SCENARIO_POLL_MS = 100;

/** What `npm run sim` scenarios need, on this pair: every event the relay published, flushed on demand. */
export function simContext({ relay, sim, config }: RelayWithSimulator): SimContext {
  return {
    relayUrl: relay.url,
    simUrl: sim.url,
    adminToken: ADMIN_TOKEN,
    config,
    events: relayEventFeed(relay, 0),
    timeoutMs: 15_000,
    pollMs: SCENARIO_POLL_MS,
  };
}

/**
 * Probes `probe` every 100 ms until it returns a value, or fails after `timeoutMs`. A probe reads what the
 * relay has published, which its pump publishes 200 ms after the relay's write (test/helpers/relay.ts drivePump):
 * the wait flushes the stream (`flush`) only once the probe holds, and returns what the probe says after it
 * (it waits on if that no longer holds), so the answer counts every write made before. Flushing before
 * every probe polled the stream 20 times a second for the whole wait, ~2 ms of DynamoDB Local CPU a poll.
 */
export async function until<T>(
  what: string,
  probe: () => Promise<T | undefined> | T | undefined,
  options: { timeoutMs: number; flush: () => Promise<unknown> },
): Promise<T> {
  const deadline = Date.now() + options.timeoutMs;
  for (;;) {
    if ((await probe()) !== undefined) {
      await options.flush();
      const value = await probe();
      if (value !== undefined) return value;
    }
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${options.timeoutMs} ms`);
    await new Promise<void>((r) => setTimeout(r, 100));
  }
}
