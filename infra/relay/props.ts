import type { Duration, RemovalPolicy, SecretValue } from 'aws-cdk-lib';
import type * as acm from 'aws-cdk-lib/aws-certificatemanager';
import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import type * as events from 'aws-cdk-lib/aws-events';
import type * as kms from 'aws-cdk-lib/aws-kms';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as route53 from 'aws-cdk-lib/aws-route53';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { RelayFunctionId } from '../bundling';
import type { RelayIsolationProps } from './isolation-props';
import type { RelayConsoleOptions } from './console';

export interface RelayThrottle {
  /** Steady-state requests per second. */
  readonly rateLimit: number;
  /** Burst bucket size. */
  readonly burstLimit: number;
}

/** A custom domain for the HTTP API, so the public base URL is known at synth time. */
export interface RelayCustomDomain {
  /** e.g. `relay.payments.example.org`. `publicBaseUrl` in the config should be `https://<domainName>`. */
  readonly domainName: string;
  /** An ACM certificate for `domainName`, in the stack's region (a regional API endpoint). */
  readonly certificate: acm.ICertificate;
  /**
   * The Route 53 hosted zone to create the alias records (A and AAAA) in. @default no record: point your
   * DNS at the `CustomDomainTarget` output (a CNAME) yourself
   */
  readonly hostedZone?: route53.IHostedZone;
}

/**
 * An optional CloudFront distribution in front of the provider callbacks, so an AWS WAF web ACL can
 * protect them (HTTP APIs cannot have one). Needs `edge: { mode: "cloudfront", originVerifySecretId }` in
 * the config: the relay then refuses callbacks that went around CloudFront and reads the viewer's IP from
 * `CloudFront-Viewer-Address` (docs/deploy.md, "The public edge").
 */
export interface RelayCloudFrontEdge {
  /**
   * ARN of a CLOUDFRONT-scope web ACL (us-east-1), e.g. the `WebAclArn` output of `RelayEdgeWebAclStack`.
   * @default none: the distribution has no WAF (synth warns)
   */
  readonly webAclArn?: string;
  /**
   * The value CloudFront sends in the `x-relay-origin-verify` origin header. Must be one of the config's
   * `edge.originVerifySecrets` (checked when it is a plain string). A plain string would be part of the
   * template: synth refuses it unless `allowInlineSecrets` is "development"; pass a `SecretValue`.
   * @default the `originVerifySecret` field of `edge.originVerifySecretId`, as a dynamic reference
   */
  readonly originVerifySecret?: string | SecretValue;
  /**
   * Edge locations used. PRICE_CLASS_200 includes Africa and the Middle East, where the providers call
   * from; PRICE_CLASS_100 (North America, Europe, Israel) would route them to a farther edge.
   * @default PRICE_CLASS_200
   */
  readonly priceClass?: cloudfront.PriceClass;
  /** Alternate domain names of the distribution (then `publicBaseUrl` should be `https://<first>`). @default none */
  readonly domainNames?: string[];
  /** ACM certificate for `domainNames`, in us-east-1 (required with `domainNames`). Viewers then need TLS 1.2. */
  readonly certificate?: acm.ICertificate;
}

/** A rule on the relay bus for one subscriber (see `MobileMoneyRelay.addSubscriber`). */
export interface RelaySubscriberOptions {
  /** `detail-type`s to deliver, e.g. `['TransactionSucceeded', 'TransactionFailed']`. At least one. */
  readonly detailTypes: string[];
  readonly target: events.IRuleTarget;
  /** Only events of these providers (`detail.data.provider`). @default every provider */
  readonly providers?: string[];
  /** Only events of these configured accounts (`detail.data.account`). @default every account */
  readonly accounts?: string[];
  readonly description?: string;
}

export interface MobileMoneyRelayProps extends RelayIsolationProps {
  /** The operator console in AWS: Cognito sign-in, S3 + CloudFront, a console API (docs/console.md). @default none */
  readonly console?: RelayConsoleOptions;
  /**
   * The relay config: the same JSON `npm start` reads (see `shared/config/schema.ts`). Validated at
   * synth time with `parseConfig`, so a bad config fails `cdk synth` with the dotted key named.
   * `management.auth` must be `"iam"`, and every account of a provider whose callbacks carry no other
   * authentication needs a `pathSecret` or an explicit `allowNoPathSecret: "<reason>"`. Secrets are
   * named by reference (`callbackSecretId`, `apiSecretId`, `edge.originVerifySecretId`,
   * `badges.shops.<shop>.secretId`): a secret value or a `REPLACE…` placeholder written in the config
   * fails synth, naming its key (see `allowInlineSecrets`). The config reaches the functions as a file
   * of a Lambda layer (`/opt/relay/config.json`), not in their environment (docs/configuration.md#secrets).
   */
  readonly config: unknown;
  /**
   * `"development"`: accept secrets written in the config and placeholders (synth warns). For a
   * throwaway stack nobody's money flows through; `npx cdk synth` sets it from
   * RELAY_ALLOW_INLINE_SECRETS=development. @default secrets only by reference
   */
  readonly allowInlineSecrets?: 'development';
  /**
   * Publish to this bus instead of creating one (e.g. `EventBus.fromEventBusName(this, 'B', 'default')`).
   * @default a bus named `events.busName` (or generated)
   */
  readonly eventBus?: events.IEventBus;
  /** Archive the relay's events on the bus for replay. @default true */
  readonly eventArchive?: boolean;
  /** @default 30 days */
  readonly eventArchiveRetention?: Duration;
  /**
   * AWS account ids (12 digits) allowed to create and manage their own rules on the relay bus (rules
   * matching the relay's `source` only; each account manages only the rules it created). Only for a bus
   * the construct creates. @default none
   */
  readonly subscriberAccounts?: string[];
  /**
   * Every alarm notifies this topic (on ALARM and on OK). With a KMS-encrypted topic, its key must let
   * `cloudwatch.amazonaws.com` use it. @default a topic created and encrypted with its own KMS key
   */
  readonly alarmTopic?: sns.ITopic;
  /** Subscribes this address to the alarm topic (confirm the e-mail AWS sends). @default none: synth warns */
  readonly alarmEmail?: string;
  /** Create the CloudWatch dashboard. @default true */
  readonly dashboard?: boolean;
  /** Retention of the functions' and the API's log groups. @default one month */
  readonly logRetention?: logs.RetentionDays;
  /** Removal policy of the data (table, log groups). @default RETAIN (and table deletion protection on) */
  readonly removalPolicy?: RemovalPolicy;
  /** Customer-managed key for the table (and its stream). @default AWS-managed DynamoDB key */
  readonly tableEncryptionKey?: kms.IKey;
  /**
   * Reserved concurrency per function; `false` for none (the account's unreserved pool). Lambda keeps
   * 100 (new accounts: 10) unreserved, so a reservation fails the deploy on an account whose quota is too
   * small: set `callback: false` there (docs/deploy.md). @default callback: the bulkhead of its routes'
   * throttles and degraded ack budgets (252 with three providers and the default throttles; synth prints
   * the arithmetic); C2B validation: its throttle × 7.5 s; the others none
   */
  readonly reservedConcurrency?: Partial<Record<RelayFunctionId, number | false>>;
  /**
   * Memory of every function when set. @default 512 MB (more memory = more CPU = faster cold start), the
   * outbox publisher 256 MB (it waits on PutEvents, off the ack path)
   */
  readonly memorySize?: number;
  /** LOG_LEVEL of the functions. @default INFO */
  readonly logLevel?: 'DEBUG' | 'INFO' | 'WARN' | 'ERROR';
  /**
   * X-Ray active tracing of the functions run once per callback or transaction (callback and decision
   * functions, management, outbox publisher, transaction-initiated). Lambda samples an actively traced
   * function itself (the first request each second, then 5%) and ignores X-Ray sampling rules for its
   * segment: at a million callbacks a month that is most of them, $5 per million traces
   * (docs/deploy.md#cost-notes). Off, they pass tracing through (nothing upstream samples) and do not
   * load the tracer. The poller and the buffer consumer are always traced. @default false
   */
  readonly hotPathTracing?: boolean;
  /**
   * Throttling of `$default` (the stage default): paths no provider route matches, so no provider's
   * callbacks (those are `providerThrottles`), only probes and scanners, answered 404. Its rate × 1 s +
   * burst is its share of the callback function's reserved concurrency. @default 10 rps, burst 10
   */
  readonly throttle?: RelayThrottle;
  /** Throttling of each management route (route settings). @default 50 rps, burst 100 */
  readonly managementThrottle?: RelayThrottle;
  /** A custom domain for the API (and the public base URL). @default none: the execute-api URL */
  readonly customDomain?: RelayCustomDomain;
  /**
   * A CloudFront distribution (with an optional WAF web ACL) in front of the API for the provider
   * callbacks; the management API is still called on the execute-api URL. @default none
   */
  readonly cloudFront?: RelayCloudFrontEdge;
  /** Stream lag (publisher IteratorAge) that raises the alarm. @default 2 minutes */
  readonly iteratorAgeAlarmThreshold?: Duration;
  /**
   * Ack p99 (the callback function's duration, alarm `AckLatency-P99`, 3 of 5 minutes) that raises the latency alarm when it is lower
   * than the tightest provider's declared `ackLatencyAlarmMs` (1.8 s): one alarm, whichever is lower.
   * @default 6 seconds
   */
  readonly callbackLatencyAlarmThreshold?: Duration;
  /**
   * Alarm (one per provider) when no account of a provider received a callback for this long (5 minutes
   * to 24 hours; the poller writes `SilentProviders{provider}` past it), or `false` for no silence
   * alarms. None while `pollingEnabled` is false (nothing writes the metric). @default 6 hours
   */
  readonly callbackSilencePeriod?: Duration | false;
  /**
   * Per account (`"<provider>/<account>"`), overrides `callbackSilencePeriod`: a provider's alarm takes the
   * shortest period of its accounts; `false` leaves the account out (all out: no alarm). @default none
   */
  readonly callbackSilencePeriods?: Record<string, Duration | false>;
  /** Rejected callbacks (`CallbacksRejected`) in 5 minutes that raise the alarm. @default 20 */
  readonly rejectedCallbacksAlarmThreshold?: number;
  /** Age of the oldest buffered callback that raises the alarm. @default 15 minutes */
  readonly ingressBufferMaxAge?: Duration;
  /** Concurrent buffer consumer invocations the SQS event source may run (2–1000). @default 5 */
  readonly bufferConsumerMaxConcurrency?: number;
  /**
   * How often EventBridge Scheduler starts a poll cycle (whole minutes, at least one). Each cycle only
   * reads the due index, so a short interval costs little when nothing is due. @default 1 minute
   */
  readonly pollInterval?: Duration;
  /**
   * Let Scheduler start each cycle anywhere within this window (spreads load across many relays in an
   * account). @default none: cycles start on the interval
   */
  readonly pollFlexibleWindow?: Duration;
  /** Turn the schedule off (e.g. while migrating) without removing the poller. @default true */
  readonly pollingEnabled?: boolean;
  /**
   * How long an uploaded statement file is kept in the statement bucket (moved to Standard-IA after 30
   * days when kept longer than 60). The rows it brought are in the table either way (docs/statements.md#in-aws).
   * @default Duration.days(400)
   */
  readonly statementFileRetention?: Duration;
  /**
   * How often the scheduled close looks for business days to close (each closes once its expected sources
   * are in or its SLA passed; docs/statements.md#the-close). @default Duration.hours(1)
   */
  readonly dayCloseInterval?: Duration;
  /**
   * `source`s whose `TransactionInitiated` events on the relay's bus register transactions (the same
   * use case as POST /v1/transactions). @default any source except the relay's own (`events.source`)
   */
  readonly transactionInitiatedSources?: string[];
  /** CloudWatch namespace of the relay's metrics (Powertools Metrics). @default `MobileMoneyRelay/<stack name>/<construct path>` (one per relay) */
  readonly metricsNamespace?: string;
  /**
   * Customer-managed KMS key encrypting the secrets the config names (`callbackSecretId`,
   * `apiSecretId`, `edge.originVerifySecretId`, badge shops' `secretId`): the functions that read them
   * get kms:Decrypt through Secrets Manager. @default the secrets use aws/secretsmanager
   */
  readonly secretsEncryptionKey?: kms.IKey;
  /**
   * The prefix of the secret names granted by pattern: a `callbackSecretId` named
   * `<prefix><anything>/callback` and an `apiSecretId` named `<prefix><anything>/api` are granted by one
   * statement per kind, whatever the number of accounts (docs/deploy.md#secrets-and-rotation). Other ids
   * (and ARNs) are granted one by one, at most 20. Every secret of the account under the prefix ending in
   * `/callback` is readable by the internet-facing functions: keep other secrets out of it (two relays in
   * one account: one prefix each). @default "mobile-money-relay/"
   */
  readonly secretNamePrefix?: string;
}
