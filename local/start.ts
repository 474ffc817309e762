import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { loadConfig, pathSecretWarnings } from '../shared/config/load';
import type { RelayConfig } from '../shared/config/schema';
import { ConsoleRelayMetrics } from '../shared/adapters/metrics/console-metrics';
import { sharedSecretReader } from '../shared/adapters/secrets/secrets-manager';
import { reconcileTiming } from '../shared/app/reconciliation/reconcile-timing';
import { ConfigError } from '../shared/domain/errors';
import { createSimulator, type Simulator } from '../simulator/server';
import { parseCli } from '../scripts/cli';
import { ConsoleLogger } from './console-logger';
import { CONSOLE_PATH } from './console-site';
import { freePort, JavaMissingError, startDynamoDbLocal } from './dynamodb-local';
import { startLocalRelay } from './relay';
import { stopOnSignals } from './shutdown';
import {
  DEFAULT_RELAY_PORT,
  DEFAULT_SIM_PORT,
  hidePathSecrets,
  pointPartnerUrlsAtSimulator,
  simulatorWiring,
  SIMULATOR_BADGE_SHOP,
  withSimulatorBadgeShop,
  withSimulatorReconciliation,
} from './simulator-wiring';

const DEMO_CONFIG = resolve(import.meta.dirname, 'demo-config.json');

// The SDK warns that its 2027 releases need Node 22; Lambda already runs 22, and locally the multi-line
// warning would bury the startup banner. The README states the Node requirements.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const USAGE = [
  'Usage: npm start [-- options]',
  '  --config <file>    relay config JSON (default: RELAY_CONFIG or local/demo-config.json)',
  `  --port <n>         HTTP port (default: PORT or ${DEFAULT_RELAY_PORT})`,
  '  --data-dir <dir>   keep DynamoDB Local data in <dir> (default: in memory; env RELAY_DATA_DIR)',
  '  --simulator        also start the provider simulator, wired to the demo accounts (README.md#try-every-provider-with-the-simulator)',
  `  --sim-port <n>     simulator port (default: SIM_PORT or ${DEFAULT_SIM_PORT}; 0 picks a free one)`,
  '                     env SIM_TIME_SCALE (default 0.1 here), SIM_APPROVAL_DELAY_MS (300), SIM_HOST (127.0.0.1)',
  '  --help             this text',
  '',
  'Environment: HOST (address to listen on, default 127.0.0.1), LOG_LEVEL (info; debug for more),',
  'RELAY_CONFIG_JSON (the config as inline JSON, before --config and RELAY_CONFIG). More: docs/configuration.md#npm-start',
  '',
].join('\n');

function fail(message: string): never {
  process.stderr.write(`\n✖ ${message}\n\n`);
  process.exit(1);
}

async function main(): Promise<void> {
  const { values } = parseCli(USAGE, {
    options: {
      'data-dir': { type: 'string' },
      port: { type: 'string' },
      config: { type: 'string' },
      simulator: { type: 'boolean' },
      'sim-port': { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: false,
  });
  const port = Number(values.port ?? process.env.PORT ?? DEFAULT_RELAY_PORT);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    fail(`--port / PORT must be a port number, got "${values.port ?? process.env.PORT}"`);
  const sim = values.simulator ? simulatorSettings(values['sim-port']) : undefined;

  let config: RelayConfig;
  try {
    config = await loadConfig(
      values.config ? { ...process.env, RELAY_CONFIG: values.config } : process.env,
      DEMO_CONFIG,
      // A config naming secrets reads them from Secrets Manager (the AWS profile in use); created on first read.
      { readSecret: (secretId) => sharedSecretReader()(secretId) },
    );
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  // Locally the relay is reachable where it listens; keep generated callback URLs pointing there.
  const base = new URL(config.publicBaseUrl);
  if ((base.hostname === 'localhost' || base.hostname === '127.0.0.1') && base.port !== String(port)) {
    base.port = String(port);
    config = { ...config, publicBaseUrl: base.toString().replace(/\/$/, '') };
  }
  // Partner decision endpoints on the simulator (the demo's /_sim/never-answers) follow its port.
  if (sim) {
    if (sim.port === 0) sim.port = await freePort();
    config = pointPartnerUrlsAtSimulator(config, `http://${urlHost(sim.host)}:${sim.port}`);
    config = withSimulatorReconciliation(config);
    config = withSimulatorBadgeShop(config, `http://${urlHost(sim.host)}:${sim.port}`);
  }

  // Before DynamoDB Local's JVM takes its seconds to start: a second `npm start` is told at once.
  const host = process.env.HOST ?? '127.0.0.1';
  if (port !== 0 && (await inUse(port, host))) fail(relayPortInUse(port));
  if (sim && sim.port !== 0 && (await inUse(sim.port, sim.host))) fail(simulatorPortInUse(sim.port));

  const log = new ConsoleLogger();
  const dataDir = values['data-dir'] ?? process.env.RELAY_DATA_DIR;
  let dynamo: Awaited<ReturnType<typeof startDynamoDbLocal>>;
  try {
    dynamo = await startDynamoDbLocal({ dataDir });
  } catch (error) {
    if (error instanceof JavaMissingError) fail(error.message);
    fail(`Could not start DynamoDB Local: ${(error as Error).message}`);
  }

  // Beside the events file: the relay's state directory (.relay/ by default).
  const bufferDir = join(dirname(resolve(config.local.eventsFile)), 'ingress-buffer');
  const relay = await startLocalRelay({
    config,
    dynamoEndpoint: dynamo.endpoint,
    tableName: 'relay-local',
    port,
    host,
    log,
    printEvent: (line) => process.stdout.write(`  ⇢ event ${line}\n`),
    metrics: new ConsoleRelayMetrics({ write: (line) => process.stdout.write(`${line}\n`) }),
    ingressBufferDir: bufferDir,
    printBuffer: (line) => process.stdout.write(`${line}\n`),
    // With the simulator, the poller (status checks, pulls, badge reads) starts once the simulator listens:
    // a first cycle before it would only print "fetch failed" warnings to a new user.
    poller: !sim,
  }).catch(async (error) => {
    await dynamo.stop();
    const code = (error as NodeJS.ErrnoException).code;
    fail(code === 'EADDRINUSE' ? relayPortInUse(port) : `Relay failed to start: ${(error as Error).stack}`);
  });

  let simulator: Simulator | undefined;
  let simulatorBanner: string[] = [];
  if (sim) {
    const wiring = simulatorWiring(relay.url, config);
    const hideSecrets = hidePathSecrets(config);
    try {
      simulator = await createSimulator({
        ...wiring.options,
        port: sim.port,
        host: sim.host,
        timeScale: sim.timeScale,
        approvalDelayMs: sim.approvalDelayMs,
        // Simulator lines name the callback URLs they post to: their path secrets are not printed.
        log: (line) => process.stdout.write(`${hideSecrets(line)}\n`),
      });
      await wiring.setup(simulator.url);
    } catch (error) {
      await simulator?.close();
      await relay.stop().catch(() => undefined);
      await dynamo.stop();
      const code = (error as NodeJS.ErrnoException).code;
      fail(
        code === 'EADDRINUSE'
          ? simulatorPortInUse(sim.port)
          : `Simulator failed to start: ${(error as Error).message}`,
      );
    }
    const demoShop = config.badges.shops[SIMULATOR_BADGE_SHOP];
    const badgeLine =
      demoShop && demoShop.baseUrl === simulator.url.replace(/\/$/, '')
        ? [
            `badges: shop ${SIMULATOR_BADGE_SHOP} reads ${demoShop.baseUrl}/${demoShop.restPrefix}/cpbw/v1/badges (a shop plugin's cpbw/v1 REST API) every ${demoShop.pollSeconds} s`,
          ]
        : [];
    simulatorBanner = simulatorBannerLines(
      simulator,
      [...wiring.describe(), ...badgeLine],
      relay.url,
      sim.timeScale,
    );
    relay.poller.start();
    relay.dayCloser.start();
  }

  const accounts = [...config.accounts.values()].map(
    (a) => `${a.provider}/${a.id}${a.pathSecret ? ' (path secret)' : ''}`,
  );
  process.stdout.write(
    [
      '',
      `Mobile-money callback relay listening on ${relay.url}`,
      `  health:      GET ${relay.url}/health (live), GET ${relay.url}/health/ready (503 while DynamoDB is down)`,
      `  management:  POST ${relay.url}/v1/transactions   (Authorization: Bearer ${config.management.bearerToken === 'demo-admin-token' ? 'demo-admin-token' : '<your token>'})`,
      `  console:     ${relay.url}${CONSOLE_PATH}   (operator console; sign in with the management bearer token)`,
      `  callbacks:   ${relay.url}/v1/{provider}/{account}/...   public base URL ${config.publicBaseUrl}`,
      `  accounts:    ${accounts.join(', ') || '(none configured)'}`,
      `  events:      ${resolve(config.local.eventsFile)} (one JSON line per event; also printed below)`,
      `  storage:     DynamoDB Local ${dynamo.endpoint}, ${dataDir ? `data in ${resolve(dataDir)}` : 'in memory (use --data-dir to keep data)'}`,
      `  buffer:      ${bufferDir} (callbacks DynamoDB cannot take are kept here, acked, and applied when it answers)`,
      pollerBannerLine(config),
      ...simulatorBanner,
      `  Ctrl-C to stop${simulator ? ' (simulator, relay and DynamoDB Local)' : ''}.`,
      '',
    ].join('\n'),
  );
  // MoMo and Daraja callbacks carry no other authentication; `cdk synth` refuses these accounts.
  const warnings = pathSecretWarnings(config);
  if (warnings.length) process.stderr.write(`${warnings.join('\n')}\n\n`);

  stopOnSignals({
    // In order (docs/configuration.md#stopping): what calls the relay, the relay (its work in flight
    // awaited, then its store closed), and DynamoDB Local last, whatever failed before it.
    stop: async (signal, hurry) => {
      process.stdout.write(
        `\n${signal}: stopping ${simulator ? 'the simulator, ' : ''}relay and DynamoDB Local… (again to stop waiting for the work in flight)\n`,
      );
      try {
        await simulator?.close().catch((error: unknown) => log.warn('simulator stop failed', { error }));
        await relay.stop({ hurry });
      } finally {
        await dynamo.stop();
      }
    },
    exit: (code) => process.exit(code),
    write: (line) => process.stdout.write(line),
    on: (signal, listener) => process.on(signal, listener),
  });
}

/** Whether something listens on the port already (the later listen still reports a race). */
function inUse(port: number, host: string): Promise<boolean> {
  return new Promise((answer) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => answer(error.code === 'EADDRINUSE'));
    probe.listen(port, host, () => probe.close(() => answer(false)));
  });
}

function relayPortInUse(port: number): string {
  return [
    `Port ${port} is in use: is another \`npm start\` still running? Stop it (Ctrl-C in its terminal), or start`,
    `  this one on another port: npm start -- --port ${port + 1}   (then give npm run sim and the other scripts --relay http://localhost:${port + 1})`,
  ].join('\n');
}

function simulatorPortInUse(port: number): string {
  return [
    `Simulator port ${port} is in use: is another \`npm start -- --simulator\` or \`npm run simulator\` running?`,
    `  Stop it, or start this one with --sim-port ${port + 1}   (then: npm run sim -- --sim http://127.0.0.1:${port + 1} …)`,
  ].join('\n');
}

interface SimulatorSettings {
  port: number;
  host: string;
  timeScale: number;
  approvalDelayMs: number;
}

function numberSetting(name: string, raw: string | undefined, fallback: number, max?: number): number {
  if (raw === undefined || raw === '') return fallback;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || (max !== undefined && (n > max || !Number.isInteger(n))))
    fail(`${name} must be ${max === undefined ? 'a non-negative number' : 'a port number'}, got "${raw}"`);
  return n;
}

function simulatorSettings(portOption: string | undefined): SimulatorSettings {
  return {
    port: numberSetting('--sim-port / SIM_PORT', portOption ?? process.env.SIM_PORT, DEFAULT_SIM_PORT, 65535),
    host: process.env.SIM_HOST || '127.0.0.1',
    // Provider time runs 10x faster by default here: a Daraja queue timeout comes after 3 s, not 30 s.
    timeScale: numberSetting('SIM_TIME_SCALE', process.env.SIM_TIME_SCALE, 0.1) || 0.1,
    approvalDelayMs: numberSetting('SIM_APPROVAL_DELAY_MS', process.env.SIM_APPROVAL_DELAY_MS, 300),
  };
}

function urlHost(host: string): string {
  if (host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}

function simulatorBannerLines(
  simulator: Simulator,
  wiring: string[],
  relayUrl: string,
  timeScale: number,
): string[] {
  const i = simulator.info();
  const user = i.momo.apiUsers[0];
  const app = i.airtel.apps[0];
  const [stkCode, passkey] = Object.entries(i.daraja.passkeys)[0] ?? [];
  const flags = [
    relayUrl === `http://localhost:${DEFAULT_RELAY_PORT}` ? '' : ` --relay ${relayUrl}`,
    simulator.url === `http://127.0.0.1:${DEFAULT_SIM_PORT}` ? '' : ` --sim ${simulator.url}`,
  ].join('');
  const hints = [
    ['momo pay', 'paid → TransactionSucceeded'],
    ['airtel pay --fault corrupt-hash', 'forged hash → CallbackRejected'],
    ['daraja stk --phone 254708371032', 'cancelled → TransactionFailed'],
    ['daraja c2b --account demo-slow', 'partner never answers → deadline default'],
    ['daraja reversal', 'a payment, then its reversal → TransactionReversed'],
    ['badge create', 'a new badge on the demo shop → BadgeCreated'],
    ['--help', 'every scenario'],
  ].map(([args, what]) => `npm run sim --${flags} ${args}`.padEnd(50 + flags.length) + `(${what})`);
  return [
    `  simulator:   ${simulator.url}   MoMo, Airtel and Daraja sandboxes (time scale ${timeScale}; GET /_sim/info)`,
    ...wiring.map((line) => `    ${line}`),
    `    credentials: MoMo subscription keys ${i.momo.collectionSubscriptionKeys.primary} (collection), ${i.momo.disbursementSubscriptionKeys.primary} (disbursement), ${i.momo.remittanceSubscriptionKeys.primary} (remittance), API user ${user?.id} / ${user?.apiKey}`,
    `                 Airtel ${app?.clientId} / ${app?.clientSecret}; Daraja ${i.daraja.consumerKey} / ${i.daraja.consumerSecret}, STK ${stkCode} / ${passkey}`,
    ...hints.map((hint, n) => `  ${n === 0 ? 'try:' : '    '}         ${hint}`),
  ];
}

main().catch((error) => fail((error as Error).stack ?? String(error)));

function pollerBannerLine(config: RelayConfig): string {
  const r = config.reconciliation;
  const first = reconcileTiming(r, 'momo', 'requesttopay');
  const scale = r.timeScale === 1 ? '' : ` × ${r.timeScale} (simulated time)`;
  const hours = (first.windowSeconds / 3600).toFixed(1);
  return `  poller:      a cycle every ${r.pollIntervalSeconds} s; checks per provider schedule${scale}: MoMo first after ${first.firstCheckSeconds} s, window ${hours} h`;
}
