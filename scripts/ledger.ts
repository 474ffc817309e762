/**
 * `npm run ledger -- --transactions N --drop P --duplicate P --status-5xx P [--relay URL --sim URL]`:
 * drives N transactions through the simulator with faults drawn at random, waits for every outcome and
 * prints a ledger that must balance (exit 0) or names what breaks it (exit 1). docs/ledger.md.
 */
import { ScenarioError } from './sim/core';
import { parseCli } from './cli';
import { DEFAULT_PLAN } from './ledger/plan';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

const HELP = `Usage: npm run ledger -- [options]

Drives N transactions across MoMo request-to-pay, Airtel push payment, Daraja STK and B2C through the
provider simulator, with the simulator's fault knobs drawn per transaction at random, plus a small share
whose sandbox outcome never finalizes (registered with a short expiresInSeconds: they must end EXPIRED).
Waits until every transaction has its final event or its window has ended, then prints the ledger:
registered = succeeded + failed + expired, exactly one final event each, 0 duplicates, 0 lost, every
outcome the one the simulator's number stands for. Exit 0 when it balances, 1 otherwise.

Without --relay it starts DynamoDB Local, the relay and the simulator in this process, as
\`npm start -- --simulator\` does (free ports, a fresh events file in a temporary directory), and stops them.

Options:
  --transactions <n>   how many (default 300)
  --drop <p>           probability that the final callback is dropped (default 0.3)
  --duplicate <p>      probability that it is sent 2 or 3 times (default 0.2)
  --status-5xx <p>     probability that the first 1-2 status calls answer 500/502/503 (default 0.1)
  --never-final <p>    share whose outcome never finalizes (MoMo +3/+4, Airtel …904) (default ${DEFAULT_PLAN.neverFinal})
  --failure <p>        share of failures among the others (default ${DEFAULT_PLAN.failure})
  --expires <s>        expiresInSeconds of the never-final ones (default ${DEFAULT_PLAN.expiresInSeconds})
  --concurrency <n>    transactions initiated at once (default 10)
  --seed <n>           random seed; the same seed draws the same plan (default: random, printed)
  --max-wait <s>       the longest to wait for outcomes (default 600)
  --relay <url>        a running relay (npm start -- --simulator); needs --sim
  --sim <url>          its simulator
  --token <t>          management bearer token (default demo-admin-token)
  --config <file>      the relay config (default RELAY_CONFIG or local/demo-config.json)
  --events <file>      with --relay: its events file (default: local.eventsFile of the config)
`;

function fail(message: string): never {
  process.stderr.write(`✖ ${message}\n`);
  process.exit(1);
}

function number(
  name: string,
  raw: string | undefined,
  fallback: number,
  check: (n: number) => boolean,
  what: string,
): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || !check(n)) fail(`--${name} must be ${what}, got "${raw}"`);
  return n;
}

const probability = (name: string, raw: string | undefined, fallback: number) =>
  number(name, raw, fallback, (n) => n >= 0 && n <= 1, 'a probability between 0 and 1');
const whole = (name: string, raw: string | undefined, fallback: number) =>
  number(name, raw, fallback, (n) => Number.isInteger(n) && n > 0, 'a positive whole number');

async function main(): Promise<void> {
  const { values } = parseCli(HELP, {
    options: {
      transactions: { type: 'string' },
      drop: { type: 'string' },
      duplicate: { type: 'string' },
      'status-5xx': { type: 'string' },
      'never-final': { type: 'string' },
      failure: { type: 'string' },
      expires: { type: 'string' },
      concurrency: { type: 'string' },
      seed: { type: 'string' },
      'max-wait': { type: 'string' },
      relay: { type: 'string' },
      sim: { type: 'string' },
      token: { type: 'string' },
      config: { type: 'string' },
      events: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.sim && !values.relay) fail('--sim needs --relay (without both, the ledger starts its own)');
  if (values.relay && !values.sim) fail('--relay needs --sim (the simulator that relay is wired to)');
  const seed = number(
    'seed',
    values.seed,
    Math.floor(Math.random() * 2 ** 31),
    (n) => Number.isInteger(n) && n >= 0,
    'a whole number',
  );
  const started = Date.now();
  const out = (line: string) => process.stdout.write(`${line}\n`);
  // Loaded once the options are known: `--help` and a mistyped option answer without loading the relay.
  const { runLedger } = await import('./ledger/run');
  const result = await runLedger({
    transactions: whole('transactions', values.transactions, 300),
    drop: probability('drop', values.drop, 0.3),
    duplicate: probability('duplicate', values.duplicate, 0.2),
    status5xx: probability('status-5xx', values['status-5xx'], 0.1),
    neverFinal: probability('never-final', values['never-final'], DEFAULT_PLAN.neverFinal),
    failure: probability('failure', values.failure, DEFAULT_PLAN.failure),
    expiresInSeconds: whole('expires', values.expires, DEFAULT_PLAN.expiresInSeconds),
    concurrency: whole('concurrency', values.concurrency, 10),
    seed,
    maxWaitMs: whole('max-wait', values['max-wait'], 600) * 1000,
    marginMs: 15_000,
    lingerMs: 3000,
    relayUrl: values.relay,
    simUrl: values.sim,
    adminToken: values.token ?? 'demo-admin-token',
    configPath: values.config,
    eventsFile: values.events,
    onNote: (line) => out(line),
    onProgress: (line) => out(`  ${line}`),
  });
  out(result.text);
  out(`\n(${((Date.now() - started) / 1000).toFixed(0)} s in all; events in ${result.eventsFile})`);
  process.exitCode = result.balanced ? 0 : 1;
}

main().catch((error) => {
  if (error instanceof ScenarioError) fail(error.message);
  fail((error as Error).stack ?? String(error));
});
