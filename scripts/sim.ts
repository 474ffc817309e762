/**
 * `npm run sim -- <provider> <scenario> [options]`: the partner's side of an integration, against a
 * running `npm start -- --simulator`. See `npm run sim -- --help` and simulator/README.md.
 */
import { resolve } from 'node:path';
import { LocalPortError, localRelayAndSimulator } from '../local/simulator-wiring';
import { loadConfig } from '../shared/config/load';
import { ConfigError } from '../shared/domain/errors';
import { FaultSpecError, parseFaults } from '../simulator/core/faults';
import { type ReceiverFault, ReceiverOptionError, startReceiver } from '../simulator/receiver/receiver';
import { BADGE_ACTIONS, isBadgeAction, runBadgeScenario } from './sim/badges';
import { type ScenarioOptions, ScenarioError, type SimContext, type Step } from './sim/core';
import { openEventsFile, relayStreamCaughtUp } from './sim/events';
import { parseCli } from './cli';
import { parseExpires } from './sim/expiry';
import { findScenario, flagOf, formatSummary, helpText, runScenario } from './sim/run';

const DEMO_CONFIG = resolve(import.meta.dirname, '../local/demo-config.json');
/** The demo config with a sample destination: the receiver verifies with its secret by default. */
const WEBHOOKS_DEMO_CONFIG = resolve(import.meta.dirname, '../local/webhooks-demo-config.json');

function fail(message: string): never {
  process.stderr.write(`✖ ${message}\n`);
  process.exit(1);
}

function printStep(step: Step, n: number): void {
  const status = step.status === undefined ? '—' : String(step.status);
  process.stdout.write(
    `  ${String(n).padStart(2)}. ${step.title.padEnd(28)} ${step.method.padEnd(4)} ${step.url}\n` +
      `      ${' '.repeat(28)} → ${status} ${step.note}\n`,
  );
}

async function main(): Promise<void> {
  const { values, positionals } = parseCli(helpText(), {
    allowPositionals: true,
    options: {
      relay: { type: 'string' },
      sim: { type: 'string' },
      token: { type: 'string' },
      config: { type: 'string' },
      events: { type: 'string' },
      timeout: { type: 'string' },
      brief: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
      account: { type: 'string' },
      msisdn: { type: 'string' },
      phone: { type: 'string' },
      amount: { type: 'string' },
      currency: { type: 'string' },
      'bill-ref': { type: 'string' },
      'party-b': { type: 'string' },
      'short-code': { type: 'string' },
      receipt: { type: 'string' },
      'external-id': { type: 'string' },
      fault: { type: 'string' },
      expires: { type: 'string' },
      badge: { type: 'string' },
      'rest-prefix': { type: 'string' },
      port: { type: 'string' },
      secret: { type: 'string' },
      failures: { type: 'string' },
      'delay-ms': { type: 'string' },
      'retry-after': { type: 'string' },
    },
  });
  if (positionals.length === 0) {
    process.stdout.write(helpText());
    return;
  }
  if (positionals[0] === 'receiver') {
    if (positionals.length > 1) fail(`unexpected arguments: ${positionals.slice(1).join(' ')}`);
    await receiverMain(values);
    return;
  }
  let urls: { relayUrl: string; simUrl: string };
  try {
    urls = localRelayAndSimulator({ relay: values.relay, sim: values.sim });
  } catch (error) {
    if (error instanceof LocalPortError) fail(error.message);
    throw error;
  }
  const [provider = '', name = '', ...extra] = positionals;
  if (extra.length) fail(`unexpected arguments: ${extra.join(' ')} (npm run sim -- --help)`);
  if (provider === 'badge') {
    await badgeMain(name, values, urls.simUrl);
    return;
  }
  const definition = findScenario(provider, name);

  const options: ScenarioOptions = {
    account: values.account,
    msisdn: values.msisdn,
    phone: values.phone,
    amount: values.amount,
    currency: values.currency,
    billRef: values['bill-ref'],
    partyB: values['party-b'],
    shortCode: values['short-code'],
    receipt: values.receipt,
    externalId: values['external-id'],
    fault: values.fault,
    expires: values.expires,
  };
  const accepted = new Set([...definition.options, 'account', 'fault']);
  for (const [key, value] of Object.entries(options)) {
    if (value !== undefined && !accepted.has(key))
      fail(
        `${flagOf(key as keyof ScenarioOptions)} does not apply to ${provider} ${name} (npm run sim -- --help)`,
      );
  }
  try {
    parseFaults(options.fault);
  } catch (error) {
    if (error instanceof FaultSpecError)
      fail(`--fault: ${error.message} (every fault: simulator/README.md#faults)`);
    throw error;
  }
  try {
    parseExpires(options.expires);
  } catch (error) {
    fail((error as Error).message);
  }
  const timeoutSeconds = Number(values.timeout ?? 20);
  if (!(timeoutSeconds > 0)) fail(`--timeout must be a positive number of seconds, got "${values.timeout}"`);

  let config: Awaited<ReturnType<typeof loadConfig>>;
  try {
    config = await loadConfig(
      values.config ? { ...process.env, RELAY_CONFIG: values.config } : process.env,
      DEMO_CONFIG,
    );
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  const eventsPath = resolve(values.events ?? config.local.eventsFile);
  const events = await openEventsFile(eventsPath, relayStreamCaughtUp(urls.relayUrl));

  let steps = 0;
  let dots = 0;
  const ctx: SimContext = {
    relayUrl: urls.relayUrl,
    simUrl: urls.simUrl,
    adminToken: values.token ?? 'demo-admin-token',
    config,
    events,
    timeoutMs: timeoutSeconds * 1000,
    extendTimeout: values.timeout === undefined,
    pollMs: 250,
    onStep: (step) => printStep(step, ++steps),
    onStarted: (started) =>
      process.stdout.write(`\n  ${started.description}\n  expected: ${started.expectation.summary}\n\n`),
    onProgress: () => {
      if (dots++ === 0) process.stdout.write('  waiting for the outcome ');
      process.stdout.write('.');
    },
  };

  process.stdout.write(`${provider} ${name}: ${definition.title}\n\n`);
  const result = await runScenario(ctx, provider, name, options);
  if (dots) process.stdout.write('\n');
  process.stdout.write(`${formatSummary(result, { raw: !values.brief, eventsLabel: eventsPath })}\n`);
  process.exitCode = result.ok ? 0 : 1;
}

/** `npm run sim -- badge <action>`: one change on the simulator's badge API and the event it became. */
async function badgeMain(
  action: string,
  values: {
    config?: string;
    events?: string;
    timeout?: string;
    badge?: string;
    'rest-prefix'?: string;
  },
  simUrl: string,
): Promise<void> {
  if (!isBadgeAction(action)) fail(`badge: one of ${BADGE_ACTIONS.join(', ')} (got "${action}")`);
  let config: Awaited<ReturnType<typeof loadConfig>>;
  try {
    config = await loadConfig(
      values.config ? { ...process.env, RELAY_CONFIG: values.config } : process.env,
      DEMO_CONFIG,
    );
  } catch (error) {
    if (error instanceof ConfigError) fail(error.message);
    throw error;
  }
  const timeoutSeconds = Number(values.timeout ?? 20);
  if (!(timeoutSeconds > 0)) fail(`--timeout must be a positive number of seconds, got "${values.timeout}"`);
  const eventsPath = resolve(values.events ?? config.local.eventsFile);
  const events = await openEventsFile(eventsPath);
  let steps = 0;
  let dots = 0;
  process.stdout.write(`badge ${action}: a change on the shop's badge API (cpbw/v1), then its event\n\n`);
  const result = await runBadgeScenario(
    {
      simUrl,
      restPrefix: values['rest-prefix'] ?? 'wp-json',
      events,
      timeoutMs: timeoutSeconds * 1000,
      pollMs: 250,
      onStep: (step) => printStep(step, ++steps),
      onProgress: () => {
        if (dots++ === 0) process.stdout.write('\n  waiting for the event ');
        process.stdout.write('.');
      },
    },
    action,
    values.badge ? { badgeId: values.badge } : {},
  );
  if (dots) process.stdout.write('\n');
  if (result.ok && result.event) {
    process.stdout.write(
      `\n✔ ${result.expected} for badge ${result.badgeId} (${eventsPath})\n${result.event.line}\n`,
    );
  } else {
    process.stdout.write(
      `\n✖ no ${result.expected} for badge ${result.badgeId} within ${timeoutSeconds} s in ${eventsPath}: is the relay started with --simulator (its demo shop reads this simulator)?\n`,
    );
    process.exitCode = 1;
  }
}

/**
 * `npm run sim -- receiver [--port 4000] [--fault slow|500|410|429|tls]`: a sample partner endpoint for
 * webhook destinations; verifies each delivery with the reference library and prints it until Ctrl-C.
 */
async function receiverMain(values: {
  port?: string;
  fault?: string;
  secret?: string;
  config?: string;
  failures?: string;
  'delay-ms'?: string;
  'retry-after'?: string;
}): Promise<void> {
  const number = (flag: string, value: string | undefined, fallback: number) => {
    const n = value === undefined ? fallback : Number(value);
    if (!Number.isInteger(n) || n < 0) fail(`--${flag} must be a whole number, got "${value}"`);
    return n;
  };
  let secret = values.secret;
  if (!secret) {
    let config: Awaited<ReturnType<typeof loadConfig>>;
    try {
      config = await loadConfig(
        { ...process.env, RELAY_CONFIG: values.config ?? WEBHOOKS_DEMO_CONFIG },
        WEBHOOKS_DEMO_CONFIG,
      );
    } catch (error) {
      if (error instanceof ConfigError) fail(error.message);
      throw error;
    }
    secret = Object.values(config.destinations)[0]?.signingSecrets[0];
    if (!secret) fail('no destination with signingSecrets in the config: pass --secret whsec_…');
  }
  try {
    const receiver = await startReceiver({
      port: number('port', values.port, 4000),
      secret,
      fault: (values.fault ?? 'none') as ReceiverFault,
      failures: number('failures', values.failures, 1),
      delayMs: number('delay-ms', values['delay-ms'], 20_000),
      retryAfterSeconds: number('retry-after', values['retry-after'], 2),
    });
    process.stdout.write(
      `sample partner endpoint on ${receiver.url} (fault: ${values.fault ?? 'none'}); Ctrl-C stops it\n`,
    );
    const stop = () => void receiver.stop().then(() => process.exit(0));
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  } catch (error) {
    if (error instanceof ReceiverOptionError) fail(error.message);
    if ((error as NodeJS.ErrnoException).code === 'EADDRINUSE')
      fail(`port ${values.port ?? 4000} is in use: --port P`);
    throw error;
  }
}

main().catch((error) => {
  if (error instanceof ScenarioError) fail(error.message);
  fail((error as Error).stack ?? String(error));
});
