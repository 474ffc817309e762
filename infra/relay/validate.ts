import { Annotations, Duration, Token } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import { accountsWithoutPathSecret, parseConfig } from '../../shared/config/load';
import type { RelayConfig } from '../../shared/config/relay-config';
import { ackBudgetFor } from '../../shared/config/limits';
import { ConfigError } from '../../shared/domain/errors';
import { PROVIDERS } from '../../shared/providers/registry';
import { RELAY_FUNCTIONS } from '../bundling';
import { findProvider } from '../../shared/providers/registry';
import { MAX_SUBSCRIBER_ACCOUNTS } from './events';
import { CALLBACK_FUNCTION_TIMEOUT, CALLBACK_INTEGRATION_TIMEOUT } from './limits';
import type { MobileMoneyRelayProps, RelayCloudFrontEdge } from './props';
import { callbackDeadlineSettings, providerWords } from './providers';

/** The value of `allowInlineSecrets` (prop) / RELAY_ALLOW_INLINE_SECRETS (infra/app.ts) that allows them. */
const ALLOW_INLINE_SECRETS = 'development';

/** Account settings that are secret by their name, whatever the provider's declaration says. */
const SECRET_SETTING =
  /^(pathSecret|previousPathSecret|callbackKey|previousCallbackKey|bearerToken|apiUser|apiKey|consumerKey|consumerSecret|passkey|securityCredential|initiatorPassword|clientId|clientSecret|\w*SubscriptionKey)$/;

/** A value somebody was meant to replace (`REPLACE-with-…`, as in the example config). */
const PLACEHOLDER = /^replace(?![a-z0-9])/i;

export interface CloudValidationOptions {
  /** `"development"`: secrets written in the config (and placeholders) are allowed; a throwaway stack only. */
  readonly allowInlineSecrets?: string;
}

type Leaf = { key: string; value: string };

/** scheme://user[:password]@host: credentials inside a URL. */
const URL_WITH_CREDENTIALS = /^[a-z][a-z0-9+.-]*:\/\/[^/?#\s]*@/i;

function stringLeaves(value: unknown, key: string, into: Leaf[] = []): Leaf[] {
  if (typeof value === 'string') into.push({ key, value });
  else if (Array.isArray(value)) value.forEach((item, i) => stringLeaves(item, `${key}.${i}`, into));
  else if (value !== null && typeof value === 'object')
    for (const [name, item] of Object.entries(value)) stringLeaves(item, key ? `${key}.${name}` : name, into);
  return into;
}

/**
 * Secrets written in the config, by dotted key, with where each belongs instead: every setting a provider
 * declares secret (`ProviderModule.secrets`), path secrets, the edge's origin secrets, the management
 * bearer token and the badge shops' credentials. They would be part of the deployment (the config layer,
 * and before it the template).
 */
export function inlineSecrets(
  input: unknown,
  config: RelayConfig,
): Array<Leaf & { instead: string; problem?: string }> {
  const found: Array<Leaf & { instead: string; problem?: string }> = [];
  const raw = (input ?? {}) as {
    accounts?: Record<string, Record<string, unknown>>;
    edge?: unknown;
    management?: { bearerToken?: unknown; searchKey?: unknown };
    badges?: { shops?: Record<string, { auth?: unknown }> };
    destinations?: Record<string, { signingSecrets?: unknown }>;
  };
  for (const account of config.accounts.values()) {
    const prefix = `accounts.${account.provider}.${account.id}`;
    const secrets = new Set<string>(
      [account.pathSecret, account.previousPathSecret].filter((v) => v !== undefined),
    );
    try {
      for (const value of findProvider(account.provider)?.secrets?.(account.settings as never) ?? [])
        if (value) secrets.add(value);
    } catch {
      // Settings checked only in part (secrets unresolved): the string scan below still sees every leaf.
    }
    for (const leaf of stringLeaves(raw.accounts?.[account.provider]?.[account.id], prefix)) {
      // By value (what the provider declares secret), and by name: an account whose settings could only
      // be checked in part (its secrets unresolved) may not give the provider what it reads.
      if (!secrets.has(leaf.value) && !SECRET_SETTING.test(leaf.key.slice(leaf.key.lastIndexOf('.') + 1)))
        continue;
      const api = leaf.key.startsWith(`${prefix}.api.`);
      found.push({
        ...leaf,
        instead: `${prefix}.${api ? 'apiSecretId' : 'callbackSecretId'} (a Secrets Manager secret holding ${api ? '{"api": {…}}' : 'the callback settings, e.g. {"pathSecret": "…"}'})`,
      });
    }
  }
  for (const leaf of stringLeaves(
    (raw.edge as { originVerifySecrets?: unknown })?.originVerifySecrets,
    'edge.originVerifySecrets',
  ))
    found.push({
      ...leaf,
      instead: 'edge.originVerifySecretId (a secret holding {"originVerifySecret": "…"})',
    });
  for (const [name, destination] of Object.entries(raw.destinations ?? {}))
    for (const leaf of stringLeaves(destination?.signingSecrets, `destinations.${name}.signingSecrets`))
      found.push({
        ...leaf,
        instead: `destinations.${name}.signingSecretId (a secret holding {"signingSecret": "whsec_…"})`,
      });
  if (typeof raw.management?.bearerToken === 'string')
    found.push({
      key: 'management.bearerToken',
      value: raw.management.bearerToken,
      instead: 'nothing',
      // Not a secret to move: one the cloud has no use for (the construct leaves it out of the config layer).
      problem:
        'management.bearerToken: the cloud authorizes the management API with IAM and never deploys this token (it is for npm start): remove it from the cloud config, where a secret in a file only ends up in its repository',
    });
  if (typeof raw.management?.searchKey === 'string')
    found.push({
      key: 'management.searchKey',
      value: raw.management.searchKey,
      instead: 'management.searchKeySecretId (a secret holding {"searchKey": "…"})',
    });
  // A URL carrying a user and password (https://user:pass@host/…) is a secret in plain sight, whatever its key.
  const listed = new Set(found.map((f) => f.key));
  for (const leaf of stringLeaves(input, ''))
    if (!listed.has(leaf.key) && URL_WITH_CREDENTIALS.test(leaf.value))
      found.push({
        ...leaf,
        instead: 'the URL without its credentials, and the credentials in the secret its settings name',
      });
  for (const [shop, { auth }] of Object.entries(raw.badges?.shops ?? {})) {
    for (const field of ['password', 'token']) {
      const value = (auth as Record<string, unknown> | undefined)?.[field];
      if (typeof value === 'string')
        found.push({
          key: `badges.shops.${shop}.auth.${field}`,
          value,
          instead: `badges.shops.${shop}.secretId (a secret holding {"${field}": "…"})`,
        });
    }
  }
  return found;
}

/**
 * `parseConfig` plus the cloud-only rules; errors name the dotted key, like every config error, and
 * list every broken rule at once. Secrets are refused inline (and placeholders anywhere) unless
 * `allowInlineSecrets` is "development".
 */
export function validateForCloud(input: unknown, options: CloudValidationOptions = {}): RelayConfig {
  // The accounts' secrets are read at cold start, not at synth: keys absent from an account that names a
  // secret are assumed to come from it.
  const config = parseConfig(input, { secretsUnresolved: true });
  const problems: string[] = [];
  if (config.management.auth !== 'iam') {
    problems.push(
      'management.auth: must be "iam" in the cloud (API Gateway authorizes the management API with AWS IAM; "bearer" is for the local server)',
    );
  }
  for (const account of accountsWithoutPathSecret(config)) {
    if (account.allowNoPathSecret !== undefined) continue;
    problems.push(
      `${account.key}: required in the cloud: ${account.providerName} callbacks carry no other authentication, so without a path secret anyone who knows a reference can post a callback. Put one (at least 16 characters of A-Z a-z 0-9 _ -, e.g. \`openssl rand -hex 16\`) in the account's callback secret, {"pathSecret": "…"} in Secrets Manager named by accounts.${account.provider}.${account.id}.callbackSecretId (docs/configuration.md#secrets), or opt out explicitly with accounts.${account.provider}.${account.id}.allowNoPathSecret: "<reason, at least 10 characters>"`,
    );
  }
  const flag = options.allowInlineSecrets;
  if (flag !== undefined && flag !== ALLOW_INLINE_SECRETS) {
    problems.push(`allowInlineSecrets: "${ALLOW_INLINE_SECRETS}" or unset (got "${flag}")`);
  } else if (flag !== ALLOW_INLINE_SECRETS) {
    const reported = new Set<string>();
    // Never the value in the message: the error lands in CI logs.
    for (const { key, instead, problem } of inlineSecrets(input, config)) {
      reported.add(key);
      problems.push(
        problem ??
          `${key}: a secret written in the config would be deployed with it: put it in Secrets Manager and name it with ${instead} (docs/configuration.md#secrets); for a throwaway development stack only, RELAY_ALLOW_INLINE_SECRETS=development allows it`,
      );
    }
    for (const { key, value } of stringLeaves(input, '')) {
      if (reported.has(key) || !PLACEHOLDER.test(value)) continue;
      problems.push(
        `${key}: still a placeholder ("${value.slice(0, 7)}…"): anyone who read the example config knows it; replace it (secrets by reference: docs/configuration.md#secrets)`,
      );
    }
  }
  if (problems.length) throw new ConfigError(`Invalid relay config:\n${problems.join('\n')}`);
  return config;
}

/**
 * The construct's own props, checked before anything is created; every problem is listed at once,
 * each naming the prop.
 */
export function validateProps(props: MobileMoneyRelayProps, config: RelayConfig): void {
  const problems: string[] = [];
  const positiveInteger = (
    name: string,
    value: number | undefined,
    min = 1,
    max = Number.MAX_SAFE_INTEGER,
  ) => {
    if (value === undefined || Token.isUnresolved(value)) return;
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name}: a whole number from ${min} to ${max} (got ${value})`);
    }
  };
  const pollInterval = props.pollInterval ?? Duration.minutes(1);
  const minutes = pollInterval.toMinutes({ integral: false });
  if (minutes < 1 || !Number.isInteger(minutes)) {
    problems.push(`pollInterval: whole minutes, at least 1 (got ${pollInterval.toHumanString()})`);
  }
  const sources = props.transactionInitiatedSources;
  if (sources && sources.length === 0) {
    problems.push('transactionInitiatedSources: name at least one source (or leave it out for any)');
  }
  if (sources?.includes(config.events.source)) {
    problems.push(
      `transactionInitiatedSources: "${config.events.source}" is the relay's own source (events.source); the relay never initiates transactions`,
    );
  }
  positiveInteger('memorySize', props.memorySize, 128, 10240);
  for (const [fn, value] of Object.entries(props.reservedConcurrency ?? {})) {
    if (!(fn in RELAY_FUNCTIONS)) {
      problems.push(
        `reservedConcurrency.${fn}: unknown function (one of ${Object.keys(RELAY_FUNCTIONS).join(', ')})`,
      );
    } else if (value !== false) {
      // 0 would throttle every invocation: a silent outage, never what anyone means.
      positiveInteger(`reservedConcurrency.${fn}`, value, 1, 10000);
    }
  }
  for (const [name, throttle] of [
    ['throttle', props.throttle],
    ['managementThrottle', props.managementThrottle],
  ] as const) {
    if (!throttle) continue;
    if (!(throttle.rateLimit > 0))
      problems.push(`${name}.rateLimit: more than 0 requests per second (got ${throttle.rateLimit})`);
    positiveInteger(`${name}.burstLimit`, throttle.burstLimit, 1, 5000);
  }
  positiveInteger('bufferConsumerMaxConcurrency', props.bufferConsumerMaxConcurrency, 2, 1000);
  positiveInteger('rejectedCallbacksAlarmThreshold', props.rejectedCallbacksAlarmThreshold, 1);
  const silences: Array<[string, Duration | false | undefined]> = [
    ['callbackSilencePeriod', props.callbackSilencePeriod],
    ...Object.entries(props.callbackSilencePeriods ?? {}).map(
      ([key, value]) => [`callbackSilencePeriods["${key}"]`, value] as [string, Duration | false],
    ),
  ];
  for (const [name, period] of silences) {
    if (period === undefined || period === false) continue;
    const seconds = period.toSeconds({ integral: false });
    if (seconds < 300 || seconds > 86_400 || seconds % 60 !== 0) {
      problems.push(
        `${name}: whole minutes from 5 minutes to 24 hours, or false (got ${period.toHumanString()})`,
      );
    }
  }
  for (const key of Object.keys(props.callbackSilencePeriods ?? {})) {
    if (!config.accounts.has(key)) {
      problems.push(
        `callbackSilencePeriods["${key}"]: no such account in the config (keys are "<provider>/<account>": ${[...config.accounts.keys()].join(', ')})`,
      );
    }
  }
  const latency = props.callbackLatencyAlarmThreshold;
  if (
    latency &&
    (latency.toMilliseconds() <= 0 || latency.toMilliseconds() > CALLBACK_FUNCTION_TIMEOUT.toMilliseconds())
  ) {
    problems.push(
      `callbackLatencyAlarmThreshold: more than 0 and at most the callback timeout ${CALLBACK_FUNCTION_TIMEOUT.toHumanString()} (got ${latency.toHumanString()})`,
    );
  }
  if (props.alarmEmail !== undefined && !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(props.alarmEmail)) {
    problems.push(`alarmEmail: not an e-mail address (got "${props.alarmEmail}")`);
  }
  if (props.subscriberAccounts) {
    if (props.eventBus) {
      problems.push(
        'subscriberAccounts: only for the bus the relay creates; set the policy of your own bus (eventBus) yourself (docs/deploy.md)',
      );
    }
    for (const account of props.subscriberAccounts) {
      if (!/^\d{12}$/.test(account))
        problems.push(`subscriberAccounts: "${account}" is not a 12-digit AWS account id`);
    }
  }
  problems.push(...resourcePolicyProblems(props));
  const domain = props.customDomain;
  if (domain) {
    if (!domain.certificate)
      problems.push(
        'customDomain.certificate: required (an ACM certificate for the domain, in the stack region)',
      );
    if (
      !Token.isUnresolved(domain.domainName) &&
      !/^(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/i.test(domain.domainName)
    ) {
      problems.push(`customDomain.domainName: not a domain name (got "${domain.domainName}")`);
    }
  }
  const edge = props.cloudFront;
  if (edge) {
    const secret = edge.originVerifySecret;
    if (
      secret === undefined &&
      config.edge.originVerifySecrets.length === 0 &&
      config.edge.originVerifySecretId === undefined
    ) {
      problems.push(
        'cloudFront.originVerifySecret: required unless the config has edge.originVerifySecretId (or, in development, edge.originVerifySecrets)',
      );
    }
    if (
      typeof secret === 'string' &&
      !Token.isUnresolved(secret) &&
      props.allowInlineSecrets !== ALLOW_INLINE_SECRETS
    ) {
      problems.push(
        'cloudFront.originVerifySecret: a plain string would be written into the template: leave it out and name the secret with edge.originVerifySecretId, or pass a SecretValue (SecretValue.secretsManager(…)); RELAY_ALLOW_INLINE_SECRETS=development allows it for a throwaway stack',
      );
    } else if (
      typeof secret === 'string' &&
      !Token.isUnresolved(secret) &&
      !config.edge.originVerifySecrets.includes(secret)
    ) {
      problems.push(
        "cloudFront.originVerifySecret: not one of the config's edge.originVerifySecrets: the relay would refuse every callback coming through the distribution",
      );
    }
    if (
      edge.webAclArn &&
      !Token.isUnresolved(edge.webAclArn) &&
      !/^arn:aws[\w-]*:wafv2:us-east-1:\d{12}:global\/webacl\/[^/]+\/[^/]+$/.test(edge.webAclArn)
    ) {
      problems.push(
        `cloudFront.webAclArn: not the ARN of a CLOUDFRONT-scope web ACL (arn:aws:wafv2:us-east-1:<account>:global/webacl/<name>/<id>; got "${edge.webAclArn}")`,
      );
    }
    if (Boolean(edge.domainNames?.length) !== Boolean(edge.certificate)) {
      problems.push(
        'cloudFront.domainNames, cloudFront.certificate: give both (the certificate in us-east-1) or neither',
      );
    }
  }
  // An ack budget past the integration timeout: API Gateway would answer 504 before the buffer is tried.
  for (const provider of new Set([...PROVIDERS.map((p) => p.id), ...Object.keys(config.ackBudgets)])) {
    const { ackMs } = ackBudgetFor(config, provider);
    if (ackMs > CALLBACK_INTEGRATION_TIMEOUT.toMilliseconds() - 500) {
      problems.push(
        `ackBudgets.${provider}.ackMs: ${ackMs} ms leaves no room inside the callback integration timeout (${CALLBACK_INTEGRATION_TIMEOUT.toMilliseconds()} ms; at most ${CALLBACK_INTEGRATION_TIMEOUT.toMilliseconds() - 500})`,
      );
    }
  }
  // No reserved-concurrency floor for the buffer consumer beyond 1: the schedule starts one drain a
  // minute, which applies its batches itself (bufferConsumerMaxConcurrency lanes in one invocation); a
  // throttled start is the next minute's drain and has received nothing, so it cannot push callbacks to
  // the DLQ (no event source mapping polls the queue any more).
  // A callback deadline a provider's account sets must leave the answer room inside the integration
  // timeout, as an ack budget must: at the timeout itself API Gateway answers 504 first.
  const deadlineRoom = CALLBACK_INTEGRATION_TIMEOUT.toMilliseconds() - 500;
  for (const account of config.accounts.values()) {
    for (const deadline of callbackDeadlineSettings(account)) {
      if (deadline.ms > deadlineRoom) {
        problems.push(
          `accounts.${account.provider}.${account.id}.${deadline.setting}: ${deadline.ms} ms leaves no room inside the callback integration timeout (${CALLBACK_INTEGRATION_TIMEOUT.toMilliseconds()} ms; at most ${deadlineRoom} in AWS, ${deadline.capMs} under npm start)`,
        );
      }
    }
  }
  if (problems.length) throw new ConfigError(`Invalid MobileMoneyRelay props:\n${problems.join('\n')}`);
}

/**
 * Principals `ingressBufferSenderArns` may name. They sit in one condition of the ingress buffer's queue
 * policy (the statement that keeps every other sender out, beside the callback role), and SQS takes at most
 * 10 conditions and 8,192 bytes in a queue policy
 * (docs.aws.amazon.com/AWSSimpleQueueService/latest/SQSDeveloperGuide/quotas-policies.html), without
 * saying whether a condition's values count apart: counted apart, 9 senders and the callback role fill
 * them; 9 IAM role ARNs of the longest (about 615 characters) stay inside the bytes.
 */
const MAX_SENDER_ARNS = 9;

/**
 * Props listed in one resource policy each: the subscriber accounts in the bus's (EventBridge's 10,240
 * characters), the ingress buffer's other senders in its queue's (SQS's conditions and 8,192 bytes).
 */
function resourcePolicyProblems(props: MobileMoneyRelayProps): string[] {
  const problems: string[] = [];
  const accounts = props.subscriberAccounts ?? [];
  if (accounts.length > MAX_SUBSCRIBER_ACCOUNTS)
    problems.push(
      `subscriberAccounts: ${accounts.length} accounts, more than ${MAX_SUBSCRIBER_ACCOUNTS}: the bus's resource policy names each one and would pass EventBridge's 10,240 characters (its default quota); subscribe the other accounts through a bus of their own`,
    );
  const senders = props.ingressBufferSenderArns ?? [];
  if (senders.length > MAX_SENDER_ARNS)
    problems.push(
      `ingressBufferSenderArns: ${senders.length} ARNs, more than ${MAX_SENDER_ARNS}: each is a value of a condition of the ingress buffer's queue policy, and SQS takes 10 conditions (the callback role is the tenth) and 8,192 bytes; let one role that operators assume redrive`,
    );
  return problems;
}

/**
 * Synth warnings for a config that would deploy but not work as meant: a public base URL that is a
 * placeholder or does not match the domain or edge in front of the API, placeholder path secrets.
 */
export function warnAboutConfig(
  scope: Construct,
  config: RelayConfig,
  props: Pick<MobileMoneyRelayProps, 'cloudFront' | 'customDomain' | 'allowInlineSecrets'>,
): void {
  if (props.allowInlineSecrets === ALLOW_INLINE_SECRETS) {
    Annotations.of(scope).addWarningV2(
      'mobile-money-relay:inline-secrets',
      'allowInlineSecrets is "development": secrets written in the config are deployed with it (in the config layer) and placeholders are accepted. Never for a stack providers call: use callbackSecretId / apiSecretId (docs/configuration.md#secrets).',
    );
  }
  const baseHost = new URL(config.publicBaseUrl).hostname;
  if (props.cloudFront) {
    warnAboutEdge(scope, config, props.cloudFront, baseHost);
  } else if (props.customDomain && !Token.isUnresolved(props.customDomain.domainName)) {
    if (baseHost !== props.customDomain.domainName.toLowerCase()) {
      Annotations.of(scope).addWarningV2(
        'mobile-money-relay:publicBaseUrl-domain',
        `publicBaseUrl (${config.publicBaseUrl}) does not match the custom domain ${props.customDomain.domainName}: the callback URLs the relay hands out (with each registration) would point elsewhere. Set publicBaseUrl to https://${props.customDomain.domainName}.`,
      );
    }
  } else if (
    baseHost === 'localhost' ||
    baseHost === '127.0.0.1' ||
    baseHost.endsWith('.example.com') ||
    baseHost === 'example.com'
  ) {
    Annotations.of(scope).addWarningV2(
      'mobile-money-relay:publicBaseUrl',
      `publicBaseUrl (${config.publicBaseUrl}) is a placeholder: the callback URLs the relay hands out (with each registration) will not reach this deployment. Set it to the ApiUrl output or your custom domain and deploy again.`,
    );
  }
  for (const account of config.accounts.values()) {
    if (account.pathSecret && /^replace/i.test(account.pathSecret)) {
      Annotations.of(scope).addWarningV2(
        'mobile-money-relay:pathSecret',
        `accounts.${account.provider}.${account.id}.pathSecret is still a placeholder: anyone who read the example config knows it, so it protects nothing. Generate one per account (openssl rand -hex 16) and deploy again.`,
      );
    }
  }
}

/** Synth warnings for a CloudFront edge the config does not match. */
function warnAboutEdge(
  scope: Construct,
  config: RelayConfig,
  edge: RelayCloudFrontEdge,
  baseHost: string,
): void {
  const mode = config.edge.mode;
  if (mode !== 'cloudfront') {
    Annotations.of(scope).addWarningV2(
      'mobile-money-relay:edge-mode',
      `cloudFront creates a distribution, but edge.mode is "${mode}": callbacks that go around it to the execute-api URL are not refused${mode === 'direct' && providerWords.sourceIpChecked() ? `, and the source-IP check of ${providerWords.sourceIpChecked()} sees CloudFront addresses (refusing every such callback through CloudFront where the check is enforced)` : ''}. Once providers use the distribution's URL, set edge.mode to "cloudfront" (docs/deploy.md).`,
    );
  }
  const names = (edge.domainNames ?? []).filter((n) => !Token.isUnresolved(n)).map((n) => n.toLowerCase());
  if (!names.includes(baseHost) && !baseHost.endsWith('.cloudfront.net')) {
    Annotations.of(scope).addWarningV2(
      'mobile-money-relay:publicBaseUrl-edge',
      `publicBaseUrl (${config.publicBaseUrl}) does not point at the CloudFront distribution${names.length ? ` (${names.join(', ')})` : ''}: the callback URLs the relay hands out would go around the web ACL${config.edge.mode === 'cloudfront' ? ', and the relay refuses those callbacks' : ''}. Set it to the EdgeUrl output (https://<id>.cloudfront.net) or to ${names.length ? `https://${names[0]}` : 'a domain you point at the distribution'}.`,
    );
  }
  if (!edge.webAclArn) {
    Annotations.of(scope).addWarningV2(
      'mobile-money-relay:edge-web-acl',
      'cloudFront has no webAclArn: the distribution adds no protection without a web ACL. Deploy RelayEdgeWebAclStack in us-east-1 (RELAY_WEB_ACL_STACK=on) and pass its WebAclArn (RELAY_WEB_ACL_ARN).',
    );
  }
}
