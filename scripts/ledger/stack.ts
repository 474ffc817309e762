/**
 * Self-starting mode of `npm run ledger`: DynamoDB Local, the relay (with its poller) and the provider
 * simulator in this process, set up as `npm start -- --simulator` sets them up (local/start.ts), on free
 * ports, with a fresh events file in a temporary directory. `stop()` ends all three.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort, startDynamoDbLocal } from '../../local/dynamodb-local';
import { type LocalRelay, startLocalRelay } from '../../local/relay';
import {
  pointPartnerUrlsAtSimulator,
  simulatorWiring,
  withSimulatorReconciliation,
} from '../../local/simulator-wiring';
import { loadConfig } from '../../shared/config/load';
import type { RelayConfig } from '../../shared/config/schema';
import type { RelayLogger } from '../../shared/app/ports';
import { createSimulator, type Simulator } from '../../simulator/server';

const DEMO_CONFIG = resolve(import.meta.dirname, '../../local/demo-config.json');

/** As local/start.ts with --simulator: provider time × 0.1, a payer answers after 300 ms. */
export const SIM_TIME_SCALE = 0.1;
export const SIM_APPROVAL_DELAY_MS = 300;

export interface Stack {
  relayUrl: string;
  simUrl: string;
  config: RelayConfig;
  eventsFile: string;
  /** Where the relay's table is (the day's close reads the statements from it). */
  dynamoEndpoint: string;
  tableName: string;
  relay: LocalRelay;
  simulator: Simulator;
  /** What the relay logged at warn/error level (counted; the first few kept). */
  logged: { warnings: number; errors: number; first: string[] };
  stop(): Promise<void>;
}

/**
 * The store's per-request timeout in a ledger run. The ledger checks what the relay decides, not how fast
 * DynamoDB Local answers on a shared 2-core machine: with the Lambda budget (1.5 s) a loaded machine made
 * the relay answer 503 STORAGE_UNAVAILABLE to registrations, status lookups and callbacks, so transactions
 * were never started and aliases never written, and the verdicts did not balance for a reason that was no
 * fault of the run's. The tests of the relay give it as long (test/helpers/relay.ts).
 */
const LEDGER_STORE_TIMEOUT_MS = 15_000;

export interface StackOptions {
  /** Use this DynamoDB Local instead of starting one (tests share theirs). */
  dynamoEndpoint?: string;
  /** The relay config (default RELAY_CONFIG or the demo config), as `npm start --config`. */
  configPath?: string;
  /** Seconds between two balance snapshots (providerRecords.balanceIntervalSeconds), over the config's. */
  balanceIntervalSeconds?: number;
  /** Keep the DynamoDB Local it starts in this folder, as `npm start --data-dir`: a later `npm start` reads it. */
  dataDir?: string;
  /**
   * The poller's time scale and cycle, over npm start's with the simulator (withSimulatorReconciliation):
   * a test that waits on the reconciliation schedule runs it faster.
   */
  reconciliation?: { timeScale: number; pollIntervalSeconds: number };
}

function quietLogger(): { log: RelayLogger; logged: Stack['logged'] } {
  const logged = { warnings: 0, errors: 0, first: [] as string[] };
  const keep = (level: string, message: string, extra: Record<string, unknown>[]) => {
    if (logged.first.length < 10)
      logged.first.push(
        `${level} ${message}${extra.length ? ` ${JSON.stringify(Object.assign({}, ...extra))}` : ''}`,
      );
  };
  return {
    logged,
    log: {
      debug() {},
      info() {},
      warn(message, ...extra) {
        logged.warnings++;
        keep('warn', message, extra);
      },
      error(message, ...extra) {
        logged.errors++;
        keep('error', message, extra);
      },
    },
  };
}

export async function startStack(options: StackOptions = {}): Promise<Stack> {
  const env = options.configPath ? { ...process.env, RELAY_CONFIG: options.configPath } : process.env;
  let config = await loadConfig(env, DEMO_CONFIG);
  const [port, simPort] = [await freePort(), await freePort()];
  const simUrl = `http://127.0.0.1:${simPort}`;
  const eventsFile = join(mkdtempSync(join(tmpdir(), 'relay-ledger-')), 'events.ndjson');
  const base = new URL(config.publicBaseUrl);
  if (base.hostname === 'localhost' || base.hostname === '127.0.0.1') base.port = String(port);
  config = {
    ...config,
    publicBaseUrl: base.toString().replace(/\/$/, ''),
    local: { ...config.local, eventsFile },
  };
  config = withSimulatorReconciliation(pointPartnerUrlsAtSimulator(config, simUrl));
  if (options.reconciliation)
    config = { ...config, reconciliation: { ...config.reconciliation, ...options.reconciliation } };
  if (options.balanceIntervalSeconds !== undefined)
    config = {
      ...config,
      providerRecords: { ...config.providerRecords, balanceIntervalSeconds: options.balanceIntervalSeconds },
    };

  const { log, logged } = quietLogger();
  const dynamo = options.dynamoEndpoint
    ? undefined
    : await startDynamoDbLocal(options.dataDir ? { dataDir: options.dataDir } : {});
  let relay: LocalRelay | undefined;
  let simulator: Simulator | undefined;
  const dynamoEndpoint = options.dynamoEndpoint ?? dynamo!.endpoint;
  const tableName = options.dynamoEndpoint ? `relay-ledger-${port}` : 'relay-local';
  try {
    relay = await startLocalRelay({
      config,
      dynamoEndpoint,
      tableName,
      port,
      log,
      dynamoRequestTimeoutMs: LEDGER_STORE_TIMEOUT_MS,
    });
    const wiring = simulatorWiring(relay.url, config);
    simulator = await createSimulator({
      ...wiring.options,
      port: simPort,
      host: '127.0.0.1',
      timeScale: SIM_TIME_SCALE,
      approvalDelayMs: SIM_APPROVAL_DELAY_MS,
      log: () => {},
    });
    await wiring.setup(simulator.url);
  } catch (error) {
    await simulator?.close().catch(() => undefined);
    await relay?.stop().catch(() => undefined);
    await dynamo?.stop();
    throw error;
  }
  const [r, s] = [relay, simulator];
  return {
    relayUrl: r.url,
    simUrl: s.url,
    config,
    eventsFile,
    dynamoEndpoint,
    tableName,
    relay: r,
    simulator: s,
    logged,
    async stop() {
      await s.close().catch(() => undefined);
      await r.stop().catch(() => undefined);
      await dynamo?.stop();
    },
  };
}
