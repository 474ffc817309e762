import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type { MonitoringKit } from './kit';
import type { RelayMonitoringTargets } from './types';

/**
 * Where each function's failure already pages, so it needs no fault or throttle alarm of its own (each
 * alarm metric bills $0.10 a month, whether it ever fires or not). A function not listed here gets a
 * fault ticket (persisting 2 of 3 minutes): a new function is watched until someone says what covers it.
 */
export const FUNCTION_FAILURES_COVERED_BY: Readonly<Record<string, string>> = {
  Callback: 'the API 5xx alarm (ServiceDegraded): a failed, timed-out or throttled callback is a 5xx',
  C2bValidation: 'the API 5xx alarm (ServiceDegraded): the provider gets a 5xx',
  Management: 'the API 5xx alarm (ServiceDegraded): callers get a 5xx',
  OutboxPublisher: 'its iterator age (page), then the outbox DLQ (page)',
  Poller: 'the poller heartbeat (ServiceDegraded): a cycle that fails is not a completed one',
  TransactionInitiated: "its DLQ (page), after Lambda's two retries",
  BufferConsumer: "the ingress buffer's age (ServiceDegraded) and its DLQ (page)",
};

/** Lambda's own graphs for every function; alarms only where no other alarm covers its failures. */
export function monitorFunctions(kit: MonitoringKit, targets: RelayMonitoringTargets): void {
  const { facade, settings } = kit;
  facade.addLargeHeader('Functions');
  for (const { name, fn } of targets.functions) {
    const covered = FUNCTION_FAILURES_COVERED_BY[name];
    facade.monitorLambdaFunction({
      lambdaFunction: fn,
      humanReadableName: `${name} function`,
      alarmFriendlyName: name,
      ...(covered
        ? {}
        : {
            addFaultCountAlarm: {
              Critical: {
                maxErrorCount: 0,
                datapointsToAlarm: 2,
                evaluationPeriods: 3,
                ...kit.routing('ticket'),
                alarmDescriptionOverride: `The ${name} function failed (unhandled error or timeout) in 2 of the last 3 minutes. See its logs.`,
              },
            },
          }),
      ...(fn === targets.outboxPublisherFunction
        ? {
            addMaxIteratorAgeAlarm: {
              Critical: {
                maxAgeInMillis: settings.iteratorAgeThreshold.toMilliseconds(),
                datapointsToAlarm: 3,
                evaluationPeriods: 3,
                treatMissingDataOverride: cloudwatch.TreatMissingData.NOT_BREACHING,
                ...kit.routing('page'),
                alarmDescriptionOverride: `The outbox publisher lags the table stream by more than ${settings.iteratorAgeThreshold.toHumanString()} for 3 minutes: events reach subscribers late (EventBridge throttling, publisher errors). Records older than 12 h go to the outbox DLQ.`,
              },
            },
          }
        : {}),
    });
  }
  if (!targets.reservedFunctions.length) return;
  // Graphed, not alarmed: a throttle is an API 5xx (ServiceDegraded), and what fills the reservation
  // (slow acks, traffic past the route throttles) pages as AckLatency or the 429 rate first.
  kit.graphs('Concurrency', 'Concurrency of the functions with reserved concurrency', [
    {
      title: 'ConcurrentExecutions (max) against the reservation',
      metrics: targets.reservedFunctions.map(({ name, fn, reserved }) =>
        fn.metric('ConcurrentExecutions', {
          statistic: 'Maximum',
          period: Duration.minutes(1),
          label: `${name} (of ${reserved})`,
        }),
      ),
      lines: targets.reservedFunctions.map(({ name, reserved }) => ({
        value: Math.max(1, Math.floor(reserved * settings.concurrencyAlarmRatio)),
        label: `${name}: ${Math.round(settings.concurrencyAlarmRatio * 100)} % of ${reserved}`,
      })),
    },
  ]);
}
