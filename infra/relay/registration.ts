import { Duration } from 'aws-cdk-lib';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

export interface RelayRegistration {
  /** `TransactionInitiated` events → the transaction-initiated function. */
  readonly rule: events.Rule;
  /** `TransactionInitiated` events that could not be delivered or registered after all retries. */
  readonly dlq: sqs.Queue;
}

/**
 * `TransactionInitiated` events → registration. Two failure paths, one DLQ, both holding the original
 * event (replayable with put-events): the rule cannot deliver (EventBridge retries, then its target DLQ),
 * or the function throws (an outage; Lambda retries the asynchronous invocation twice, then the
 * function's DLQ). Refused input is not retried.
 */
export function registerInitiatedTransactions(
  scope: Construct,
  fn: lambda.Function,
  eventBus: events.IEventBus,
  options: { eventSource: string; sources: string[] | undefined },
): RelayRegistration {
  const dlq = new sqs.Queue(scope, 'TransactionInitiatedDlq', {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  fn.configureAsyncInvoke({ retryAttempts: 2, maxEventAge: Duration.hours(6) });
  const cfnFunction = fn.node.defaultChild as lambda.CfnFunction;
  cfnFunction.deadLetterConfig = { targetArn: dlq.queueArn };
  dlq.grantSendMessages(fn);
  const rule = new events.Rule(scope, 'TransactionInitiatedRule', {
    eventBus,
    description: 'TransactionInitiated events from the partner: register the transaction with the relay',
    eventPattern: {
      detailType: ['TransactionInitiated'],
      source: options.sources ?? events.Match.anythingBut(options.eventSource),
    },
    targets: [
      new eventTargets.LambdaFunction(fn, {
        retryAttempts: 185,
        maxEventAge: Duration.hours(24),
        deadLetterQueue: dlq,
      }),
    ],
  });
  return { rule, dlq };
}
