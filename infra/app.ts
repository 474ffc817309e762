import { findProvider } from '../shared/providers/registry';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { App, Aspects } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { parseConfig } from '../shared/config/load';
import { PROJECT_ROOT } from './bundling';
import { RelayEdgeWebAclStack } from './edge-web-acl';
import { RelayStack } from './relay-stack';
import { providerWords } from './relay/providers';

/**
 * `npx cdk synth|deploy`. Config: the JSON file named by RELAY_CONFIG, else infra/example-config.json.
 * Optional: RELAY_STACK_NAME (default MobileMoneyRelay), ALARM_EMAIL (subscribes to the page topic),
 * TICKET_EMAIL (subscribes to the ticket topic, docs/monitoring.md),
 * CALLBACK_RESERVED_CONCURRENCY (a number, or `off` for accounts whose Lambda quota is too small),
 * RELAY_ALLOW_INLINE_SECRETS=development (accept secrets written in the config and placeholders: a
 * throwaway stack only; otherwise synth fails naming each such key, docs/configuration.md#secrets).
 * The CloudFront + WAF edge (docs/deploy.md, "The public edge"): RELAY_WEB_ACL_STACK=on adds the web ACL
 * stack `<stack name>-EdgeWebAcl` in us-east-1 (its own page topic, ALARM_EMAIL subscribed; RELAY_WAF_RATE_LIMIT, default 2000 per 5 minutes;
 * RELAY_WAF_EXEMPT_CIDRS, default the config's source allow-lists, `none` for none); RELAY_CLOUDFRONT=on
 * puts a CloudFront distribution in front of the callbacks, RELAY_WEB_ACL_ARN attaches that web ACL.
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

function flag(name: string): boolean {
  const value = process.env[name];
  if (value === undefined || value === '' || value === 'off') return false;
  if (value === 'on') return true;
  throw new Error(`${name}: "on" or "off" (got "${value}")`);
}

/** The providers' callback sources the WAF rate rule spares: each account's source allow-list, where its provider has one. */
function exemptCidrs(config: unknown): string[] {
  const value = process.env.RELAY_WAF_EXEMPT_CIDRS;
  if (value === 'none') return [];
  if (value)
    return value
      .split(',')
      .map((cidr) => cidr.trim())
      .filter(Boolean);
  const parsed = parseConfig(config, { secretsUnresolved: true });
  return [...parsed.accounts.values()].flatMap((account) => [
    ...(findProvider(account.provider)?.callbackSourceCidrs?.(account.settings) ?? []),
  ]);
}

function rateLimit(value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = Number(value);
  if (!Number.isInteger(n)) throw new Error(`RELAY_WAF_RATE_LIMIT: a whole number (got "${value}")`);
  return n;
}

function allowInlineSecrets(value: string | undefined): 'development' | undefined {
  if (value === undefined || value === '' || value === 'off') return undefined;
  if (value === 'development') return value;
  throw new Error(`RELAY_ALLOW_INLINE_SECRETS: "development" or unset (got "${value}")`);
}

/**
 * The operator console (docs/console.md): on unless RELAY_CONSOLE=off; its Cognito hosted UI domain is
 * RELAY_CONSOLE_DOMAIN_PREFIX (unique in the region), by default the construct's
 * `<stack name>-console-<8 hex from the stack id>`, which never collides with another stack's.
 */
function operatorConsole(): { domainPrefix?: string } | undefined {
  const value = process.env.RELAY_CONSOLE;
  if (value === 'off') return undefined;
  if (value !== undefined && value !== '' && value !== 'on')
    throw new Error(`RELAY_CONSOLE: "on" or "off" (got "${value}")`);
  return { domainPrefix: process.env.RELAY_CONSOLE_DOMAIN_PREFIX || undefined };
}

/** The app: every problem it finds in the config or the environment is thrown as an Error naming the key. */
function synthesize(): void {
  const callbackConcurrency = reservedConcurrency(process.env.CALLBACK_RESERVED_CONCURRENCY);
  const config = readConfig(configPath);
  const stackName = process.env.RELAY_STACK_NAME ?? 'MobileMoneyRelay';
  const webAclArn = process.env.RELAY_WEB_ACL_ARN || undefined;
  const cloudFront = flag('RELAY_CLOUDFRONT');
  if (webAclArn && !cloudFront) throw new Error('RELAY_WEB_ACL_ARN: needs RELAY_CLOUDFRONT=on');
  const app = new App();
  if (flag('RELAY_WEB_ACL_STACK')) {
    new RelayEdgeWebAclStack(app, `${stackName}-EdgeWebAcl`, {
      alarmEmail: process.env.ALARM_EMAIL || undefined,
      description: 'Mobile-money callback relay: AWS WAF web ACL (CLOUDFRONT scope) for its CloudFront edge',
      webAcl: {
        rateLimit: rateLimit(process.env.RELAY_WAF_RATE_LIMIT),
        exemptCidrs: exemptCidrs(config),
      },
    });
  }
  new RelayStack(app, stackName, {
    description: `Mobile-money callback relay (${providerWords.all()}): callbacks, management API, events`,
    relay: {
      config,
      alarmEmail: process.env.ALARM_EMAIL || undefined,
      ticketEmail: process.env.TICKET_EMAIL || undefined,
      allowInlineSecrets: allowInlineSecrets(process.env.RELAY_ALLOW_INLINE_SECRETS),
      secretNamePrefix: process.env.RELAY_SECRET_NAME_PREFIX || undefined,
      cloudFront: cloudFront ? { webAclArn } : undefined,
      reservedConcurrency: callbackConcurrency === undefined ? undefined : { callback: callbackConcurrency },
      console: operatorConsole(),
    },
  });
  Aspects.of(app).add(new AwsSolutionsChecks({ verbose: true }));
  app.synth();
}

/**
 * A config or environment problem is the user's to fix, so it is one line naming the key and where to read
 * more, not a stack trace (`cdk synth` prints whatever the app writes); `cdk --debug` (CDK_DEBUG) keeps
 * the stack for a bug of ours.
 */
try {
  synthesize();
} catch (error) {
  if (process.env.CDK_DEBUG) throw error;
  console.error(`Cannot synthesize the relay: ${(error as Error).message}`);
  console.error('Configuration: docs/deploy.md#configure (`cdk --debug synth` shows where it was thrown)');
  process.exit(1);
}
