import type { Duration } from 'aws-cdk-lib';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { RelayThrottle } from './props';

/**
 * Props of the isolating edge, the paging split and the buffer/bus hardening (issue 20, items 4–6):
 * docs/deploy.md ("The public edge", "Alarms") and docs/monitoring.md.
 */
export interface RelayIsolationProps {
  /**
   * Throttling of each provider's callback routes (`ANY /v1/<provider>/{proxy+}`), by provider id. A
   * provider not named here gets `DEFAULT_PROVIDER_THROTTLE` (20 rps, burst 20). Each route's rate ×
   * its provider's degraded ack budget + burst is its share of the callback function's reserved
   * concurrency, so one provider's flood or slow path cannot take another's. @default 20 rps, burst 20 per provider
   */
  readonly providerThrottles?: Record<string, RelayThrottle>;
  /**
   * Throttling of each isolated decision route (e.g. C2B validation), by the route's id
   * (`C2bValidation`). @default the route's declared throttle (5 rps, burst 10 for C2B validation)
   */
  readonly decisionThrottles?: Record<string, RelayThrottle>;
  /**
   * Alarms that need a person now (a storage outage, a DLQ message, the buffer off…) notify this
   * topic. @default a topic created (KMS-encrypted); `alarmTopic` is this one when given
   */
  readonly pageTopic?: sns.ITopic;
  /**
   * Alarms that need a person in working hours (an expired transaction, one buffered callback, a silent
   * account, scanner-driven rejections…) notify this topic. @default a topic created (KMS-encrypted)
   */
  readonly ticketTopic?: sns.ITopic;
  /** Subscribes this address to the ticket topic. @default none (synth warns) */
  readonly ticketEmail?: string;
  /**
   * Callback function concurrency, as a share of its reserved concurrency, that raises the
   * near-the-limit alarm (3 of 5 minutes). @default 0.8
   */
  readonly concurrencyAlarmRatio?: number;
  /** A poller with no completed cycle for this long pages (missing data counts). @default 10 minutes */
  readonly pollerHeartbeatPeriod?: Duration;
  /** Stage 429 (throttled) rate (per cent of requests, 5 minutes) that pages. @default 1 */
  readonly throttledRatePercent?: number;
  /** Stage 5xx rate (per cent of requests, 5 minutes) that pages. @default 5 */
  readonly serverErrorRatePercent?: number;
  /**
   * IAM principal ARNs, besides the callback functions' role, that may send to the ingress buffer:
   * whoever redrives its DLQ (`aws sqs start-message-move-task` sends as the caller). @default none
   */
  readonly ingressBufferSenderArns?: string[];
}
