import type { Duration } from 'aws-cdk-lib';
import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';

/** What the monitoring watches; every member comes from the relay construct. */
export interface RelayMonitoringTargets {
  readonly functions: ReadonlyArray<{ readonly name: string; readonly fn: lambda.IFunction }>;
  readonly callbackFunction: lambda.IFunction;
  readonly outboxPublisherFunction: lambda.IFunction;
  readonly api: apigwv2.IHttpApi;
  readonly table: dynamodb.ITable;
  /** Dead-letter queues: one message pages, unless another alarm already pages for the same failure. */
  readonly deadLetterQueues: ReadonlyArray<{
    readonly name: string;
    readonly queue: sqs.IQueue;
    readonly action: string;
    /** The alarm that pages for what lands here (the queue is graphed, not alarmed). */
    readonly coveredBy?: string;
  }>;
  readonly ingressBuffer: sqs.IQueue;
  readonly ingressBufferDlq: sqs.IQueue;
  /** `provider/account` of every configured account (callback silence alarms). */
  readonly accounts: ReadonlyArray<{ readonly provider: string; readonly account: string }>;
  /** The API's access log group (the stage's 429s are counted from it). */
  readonly accessLogs: logs.ILogGroup;
  /** Functions with reserved concurrency: graphed against it (a throttle is a 5xx, which pages). */
  readonly reservedFunctions: ReadonlyArray<{
    readonly name: string;
    readonly fn: lambda.IFunction;
    readonly reserved: number;
  }>;
  /** The poller (its heartbeat). */
  readonly pollerFunction: lambda.IFunction;
  /** The decision-route functions (e.g. C2B validation): graphed; their failures are API 5xx, which page. */
  readonly decisionFunctions?: ReadonlyArray<{ readonly name: string; readonly fn: lambda.IFunction }>;
  /** Providers with a configured account: one provider-outage alarm over them all (never one per account). */
  readonly providers?: readonly string[];
  /** Badge shops are configured: a shop's badge API failing tickets. */
  readonly badges?: boolean;
  /**
   * The CloudFront edge, when the relay has one: origin-verify refusals, and (a stack in us-east-1 only,
   * where CloudFront publishes its metrics) the distribution's 5xx rate, join the `EdgeOutage` composite.
   */
  readonly edge?: { readonly distribution: cloudfront.IDistribution; readonly probe?: lambda.IFunction };
}

export interface RelayMonitoringSettings {
  readonly metricsNamespace: string;
  /** Needs a person now. */
  readonly pageTopic: sns.ITopic;
  /** Needs a person in working hours. */
  readonly ticketTopic: sns.ITopic;
  /** Prefix of alarm and dashboard names (unique per account and region). */
  readonly namePrefix: string;
  readonly dashboard: boolean;
  readonly iteratorAgeThreshold: Duration;
  /** The AckLatency-P99 alarm (the callback function's duration) pages at the lowest of this and the providers' `ackLatencyAlarms`. */
  readonly callbackLatencyThreshold: Duration;
  /** Per `provider/account`: the silence period, or false (no alarm). */
  readonly callbackSilence: (provider: string, account: string) => Duration | false;
  readonly rejectedCallbacksThreshold: number;
  readonly bufferMaxAge: Duration;
  /**
   * Per provider: the ack p99 that pages (from the providers' declarations), and for its
   * description the provider's own answer limit (`limit`, e.g. "X's 2 s"; absent when it documents
   * none) and whether it delivers a callback again (`retries`).
   */
  readonly ackLatencyAlarms: ReadonlyArray<{
    readonly provider: string;
    readonly ms: number;
    readonly limit?: string;
    readonly retries?: boolean;
  }>;
  /** Share of the reserved concurrency drawn as a line on the concurrency graph. */
  readonly concurrencyAlarmRatio: number;
  /** No completed poll cycle for this long pages; false: polling is off (`pollingEnabled: false`), no alarm. */
  readonly pollerHeartbeatPeriod: Duration | false;
  /** The stage's 429 rate (% of requests in 5 minutes) that pages. */
  readonly throttledRatePercent: number;
  /** CloudFront's 5xx rate that joins EdgeOutage (the API's 5xx page from the first persisting one). */
  readonly serverErrorRatePercent: number;
  /** Failed status API calls per 5 minutes (2 of 3), all providers together, that page as a provider outage. @default 10 */
  readonly providerOutageErrors?: number;
}
