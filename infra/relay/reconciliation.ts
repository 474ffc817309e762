import { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { scheduleFunction } from './schedule-role';
import type { MobileMoneyRelayProps } from './props';

export interface RelayReconciliation {
  /** Starts a poll cycle every `pollInterval`. */
  readonly schedule: scheduler.Schedule;
  /** Poll cycles Scheduler could not hand to Lambda. */
  readonly dlq: sqs.Queue;
  readonly scheduleRole: iam.Role;
}

/**
 * Reconciliation: Scheduler → poller. Scheduler invokes Lambda asynchronously. A failed cycle is not
 * retried (the next one starts within a minute and finds the same due items); the DLQ receives the
 * cycles Scheduler could not hand over.
 */
export function schedulePolling(
  scope: Construct,
  poller: lambda.Function,
  props: Pick<MobileMoneyRelayProps, 'pollInterval' | 'pollFlexibleWindow' | 'pollingEnabled'>,
): RelayReconciliation {
  poller.configureAsyncInvoke({ retryAttempts: 0, maxEventAge: Duration.minutes(1) });
  const dlq = new sqs.Queue(scope, 'PollScheduleDlq', {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(4),
  });
  // An own role (not the stack-wide one the target would create): invoke this function, send to this DLQ.
  const { schedule, role: scheduleRole } = scheduleFunction(scope, 'PollSchedule', {
    fn: poller,
    rate: props.pollInterval ?? Duration.minutes(1),
    description: 'Starts a reconciliation poll cycle of the mobile-money relay',
    roleDescription: 'EventBridge Scheduler: invokes the relay poller',
    target: { retryAttempts: 0, maxEventAge: Duration.minutes(1), deadLetterQueue: dlq },
    flexibleWindow: props.pollFlexibleWindow,
    enabled: props.pollingEnabled ?? true,
  });
  return { schedule, dlq, scheduleRole };
}
