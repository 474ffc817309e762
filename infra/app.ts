import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { App, Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PROJECT_ROOT } from './bundling';
import { RelayStack } from './relay-stack';

/**
 * `npx cdk synth|deploy`. Config: the JSON file named by RELAY_CONFIG, else infra/example-config.json.
 * Optional: RELAY_STACK_NAME (default MobileMoneyRelay), ALARM_EMAIL (subscribes to the alarm topic),
 * CALLBACK_RESERVED_CONCURRENCY (a number, or `off` for accounts whose Lambda quota is too small).
 * The stack is environment-agnostic (no lookups): `cdk deploy` uses the CLI's account and region.
 */
function readConfig(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (cause) {
    throw new Error(`RELAY_CONFIG: cannot read ${path}: ${(cause as Error).message}`, { cause });
  }
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new Error(`${path}: not valid JSON: ${(cause as Error).message}`, { cause });
  }
}

const configPath = process.env.RELAY_CONFIG
  ? resolve(process.env.RELAY_CONFIG)
  : join(PROJECT_ROOT, 'infra', 'example-config.json');

function reservedConcurrency(value: string | undefined): number | false | undefined {
  if (value === undefined || value === '') return undefined;
  if (value === 'off') return false;
  const n = Number(value);
  if (!Number.isInteger(n)) {
    throw new Error(`CALLBACK_RESERVED_CONCURRENCY: a whole number or "off" (got "${value}")`);
  }
  return n;
}

const callbackConcurrency = reservedConcurrency(process.env.CALLBACK_RESERVED_CONCURRENCY);
const app = new App();
new RelayStack(app, process.env.RELAY_STACK_NAME ?? 'MobileMoneyRelay', {
  description: 'Mobile-money callback relay (MoMo, Airtel, Daraja): callbacks, management API, events',
  relay: {
    config: readConfig(configPath),
    alarmEmail: process.env.ALARM_EMAIL || undefined,
    reservedConcurrency: callbackConcurrency === undefined ? undefined : { callback: callbackConcurrency },
  },
});
Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
app.synth();
