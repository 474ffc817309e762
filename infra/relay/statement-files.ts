import { Duration, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import { SqsDestination } from 'aws-cdk-lib/aws-lambda-destinations';
import * as s3 from 'aws-cdk-lib/aws-s3';
import * as s3n from 'aws-cdk-lib/aws-s3-notifications';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as schedulerTargets from 'aws-cdk-lib/aws-scheduler-targets';
import type * as sns from 'aws-cdk-lib/aws-sns';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import type { Construct } from 'constructs';
import { newScheduleRole } from './schedule-role';
import { DAYS_OVERDUE_METRIC, IMPORTS_REFUSED_METRIC } from '../../shared/config/metric-names';
import {
  CLOSE_DAYS_INPUT,
  REPORT_KEY_PREFIX,
  STATEMENT_KEY_PREFIX,
} from '../../shared/config/statement-files';
import { monitoringNamePrefix, TICKET_TAG } from '../monitoring';
import type { MobileMoneyRelayProps } from './props';

/** Statement files are kept 13 months: a year of them for the yearly audit, and a month to spare. */
const DEFAULT_STATEMENT_FILE_RETENTION = Duration.days(400);
/** Moved to Standard-IA after this: read again only to re-import or audit. */
const STATEMENT_FILE_IA_AFTER = Duration.days(30);
/** An upload's report (its answer) is read the day it is written. */
const STATEMENT_REPORT_RETENTION = Duration.days(30);
/** How often the due days are closed. */
const DEFAULT_DAY_CLOSE_INTERVAL = Duration.hours(1);

export interface RelayStatementFiles {
  readonly bucket: s3.Bucket;
  /** The statements function's asynchronous invocations that failed every try (an import, a close). */
  readonly failures: sqs.Queue;
  readonly closeSchedule: scheduler.Schedule;
  readonly alarms: cloudwatch.Alarm[];
}

/**
 * The statement files in AWS (docs/statements.md#in-aws): a private bucket (public access blocked,
 * SSE-S3, TLS only, lifecycle), an upload under `statements/` starts the statements function (S3 event
 * notification), which reads `statements/*` and writes each upload's report under `reports/`; an
 * EventBridge Scheduler schedule closes the due days. Who may upload is the bucket policy's and the
 * uploaders' IAM policies' decision (MobileMoneyRelay.grantStatementUpload): the function trusts S3's
 * authentication and records the uploader's principal as the operator on every row's evidence.
 */
export function createStatementFiles(
  scope: Construct,
  fn: lambda.Function,
  parts: { removalPolicy: RemovalPolicy; metricsNamespace: string; ticketTopic: sns.ITopic },
  props: Pick<MobileMoneyRelayProps, 'statementFileRetention' | 'dayCloseInterval'>,
): RelayStatementFiles {
  const retention = props.statementFileRetention ?? DEFAULT_STATEMENT_FILE_RETENTION;
  const bucket = new s3.Bucket(scope, 'StatementBucket', {
    blockPublicAccess: s3.BlockPublicAccess.BLOCK_ALL,
    encryption: s3.BucketEncryption.S3_MANAGED,
    enforceSSL: true,
    minimumTLSVersion: 1.2,
    objectOwnership: s3.ObjectOwnership.BUCKET_OWNER_ENFORCED,
    removalPolicy: parts.removalPolicy,
    lifecycleRules: [
      {
        id: 'statement-files',
        prefix: STATEMENT_KEY_PREFIX,
        // Standard-IA needs 30 days in Standard first; no move when the files are kept no longer than that.
        ...(retention.toDays() > STATEMENT_FILE_IA_AFTER.toDays() + 30
          ? {
              transitions: [
                { storageClass: s3.StorageClass.INFREQUENT_ACCESS, transitionAfter: STATEMENT_FILE_IA_AFTER },
              ],
            }
          : {}),
        expiration: retention,
      },
      { id: 'upload-reports', prefix: REPORT_KEY_PREFIX, expiration: STATEMENT_REPORT_RETENTION },
      { id: 'incomplete-uploads', abortIncompleteMultipartUploadAfter: Duration.days(1) },
    ],
  });
  bucket.addEventNotification(s3.EventType.OBJECT_CREATED, new s3n.LambdaDestination(fn), {
    prefix: STATEMENT_KEY_PREFIX,
  });
  // Reads the uploads, writes the reports: nothing else in the bucket (a report never triggers an import).
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['s3:GetObject'],
      resources: [bucket.arnForObjects(`${STATEMENT_KEY_PREFIX}*`)],
    }),
  );
  fn.addToRolePolicy(
    new iam.PolicyStatement({
      actions: ['s3:PutObject'],
      resources: [bucket.arnForObjects(`${REPORT_KEY_PREFIX}*`)],
    }),
  );

  const interval = props.dayCloseInterval ?? DEFAULT_DAY_CLOSE_INTERVAL;
  const scheduleRole = newScheduleRole(
    scope,
    'DayCloseScheduleRole',
    'EventBridge Scheduler: invokes the relay statements function to close the due days',
  );
  const closeSchedule = new scheduler.Schedule(scope, 'DayCloseSchedule', {
    description:
      'Closes the business days of the relay accounts once their sources are in or their SLA passed',
    schedule: scheduler.ScheduleExpression.rate(interval),
    // A run lost is taken by the next one (closes are idempotent); the overdue alarm watches the result.
    target: new schedulerTargets.LambdaInvoke(fn, {
      role: scheduleRole,
      input: scheduler.ScheduleTargetInput.fromObject(CLOSE_DAYS_INPUT),
      retryAttempts: 2,
      maxEventAge: Duration.minutes(15),
    }),
    timeWindow: scheduler.TimeWindow.off(),
  });

  const failures = invocationFailures(scope, fn);
  const alarms = statementAlarms(scope, { ...parts, interval, failures });
  suppressStatementFindings({ bucket, fn, scheduleRole, failures });
  return { bucket, failures, closeSchedule, alarms };
}

/**
 * S3 and the scheduler invoke the function asynchronously: Lambda retries a failed invocation twice, then
 * (by default) drops it, and an upload whose import failed on an outage (DynamoDB out, the function's
 * timeout) would be lost without a trace. Here the event goes to a queue instead (its S3 key, for the
 * upload to be put again), and a ticket says so (StatementInvocationFailed).
 */
function invocationFailures(scope: Construct, fn: lambda.Function): sqs.Queue {
  const failures = new sqs.Queue(scope, 'StatementFailures', {
    encryption: sqs.QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  fn.configureAsyncInvoke({
    onFailure: new SqsDestination(failures),
    retryAttempts: 2,
    maxEventAge: Duration.hours(6),
  });
  return failures;
}

/**
 * Three tickets (docs/monitoring.md): an invocation that failed every try (an import or a close), an upload refused (the report beside it says why, row and column),
 * and a day not closed by its SLA: every scheduled run writes how many account-days are past their SLA and
 * still open (StatementDaysOverdue, 0 included), so two runs in a row with one, or with no run at all,
 * open a ticket. A failing function also tickets through its own fault alarm (Statements-Fault-Count).
 */
function statementAlarms(
  scope: Construct,
  parts: { metricsNamespace: string; ticketTopic: sns.ITopic; interval: Duration; failures: sqs.IQueue },
): cloudwatch.Alarm[] {
  const prefix = monitoringNamePrefix(scope);
  const metric = (name: string, statistic: string, period: Duration) =>
    new cloudwatch.Metric({ namespace: parts.metricsNamespace, metricName: name, statistic, period });
  const refused = new cloudwatch.Alarm(scope, 'StatementImportRefusedAlarm', {
    alarmName: `${prefix}-StatementImportRefused`,
    alarmDescription: `[${TICKET_TAG}] A statement file uploaded to the statement bucket was refused and nothing of it imported. Its report (reports/<provider>/<account>/<file>.json) and the statements function's "statement import refused" log line name the row and the column; fix the file (or its key, template or account) and upload it again (docs/statements.md#in-aws).`,
    metric: metric(IMPORTS_REFUSED_METRIC, 'Sum', Duration.minutes(5)),
    threshold: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    actionsEnabled: true,
  });
  const overdue = new cloudwatch.Alarm(scope, 'DayCloseOverdueAlarm', {
    alarmName: `${prefix}-DayCloseOverdue`,
    alarmDescription: `[${TICKET_TAG}] A business day is past its SLA and still not closed (no DailyClosed), or the scheduled close did not run, for two runs (${parts.interval.toHumanString()} apart). The statements function's "scheduled close" log line names the days, "day close failed" the error; the DayCloseSchedule schedule and the function's errors. A person may close a day by hand: POST /v1/statements/{provider}/{account}/days/{day}/close (docs/statements.md#the-close).`,
    metric: metric(DAYS_OVERDUE_METRIC, 'Maximum', parts.interval),
    threshold: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 2,
    datapointsToAlarm: 2,
    // No datapoint: the schedule or the function stopped, and nothing closes.
    treatMissingData: cloudwatch.TreatMissingData.BREACHING,
    actionsEnabled: true,
  });
  const failed = new cloudwatch.Alarm(scope, 'StatementInvocationFailedAlarm', {
    alarmName: `${prefix}-StatementInvocationFailed`,
    alarmDescription: `[${TICKET_TAG}] The statements function failed an upload's import (or a scheduled close) three times, and the event is in the StatementFailures queue: the message's requestPayload names the S3 key, requestContext.condition and responsePayload the error; the upload's report says "failed". Fix the cause (the function's "statement import failed" log line, its errors and DynamoDB), then upload the same file again to the same key: an import is idempotent, rows already stored are skipped (docs/statements.md#in-aws).`,
    metric: parts.failures.metricApproximateNumberOfMessagesVisible({
      period: Duration.minutes(5),
      statistic: 'Maximum',
    }),
    threshold: 1,
    comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
    evaluationPeriods: 1,
    treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    actionsEnabled: true,
  });
  for (const alarm of [refused, overdue, failed]) {
    // OK goes where ALARM went (docs/monitoring.md).
    alarm.addAlarmAction(new SnsAction(parts.ticketTopic));
    alarm.addOkAction(new SnsAction(parts.ticketTopic));
  }
  return [refused, overdue, failed];
}

function suppressStatementFindings(parts: {
  bucket: s3.Bucket;
  fn: lambda.Function;
  scheduleRole: iam.Role;
  failures: sqs.Queue;
}) {
  NagSuppressions.addResourceSuppressions(parts.failures, [
    {
      id: 'AwsSolutions-SQS3',
      reason:
        'This queue is itself a dead-letter queue: the statements function invocations that failed every try',
    },
  ]);
  NagSuppressions.addResourceSuppressions(parts.bucket, [
    {
      id: 'AwsSolutions-S1',
      reason:
        'No server access log bucket: the statements function logs every upload it takes with the uploader (the S3 principal of the event) and writes a report per upload; a log bucket would be a second bucket to secure and pay for. For a full audit of every request, turn on CloudTrail S3 data events for this bucket (docs/statements.md#in-aws).',
    },
  ]);
  NagSuppressions.addResourceSuppressions(
    parts.fn.role!,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'Active X-Ray tracing needs xray:PutTraceSegments/PutTelemetryRecords (no resource-level permissions: Resource "*"). S3 access is GetObject on the statement bucket\'s statements/* (the uploads, keys chosen by the uploader) and PutObject on its reports/* only.',
        appliesTo: [
          'Resource::*',
          { regex: '/^Resource::<.*StatementBucket.*\\.Arn>/statements/\\*$/g' },
          { regex: '/^Resource::<.*StatementBucket.*\\.Arn>/reports/\\*$/g' },
        ],
      },
    ],
    true,
  );
  NagSuppressions.addResourceSuppressions(
    parts.scheduleRole,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'lambda:InvokeFunction is granted on the statements function and its qualified ARNs (<function ARN>:*, versions and aliases of this one function), as Function.grantInvoke does; no other function or action.',
        appliesTo: [{ regex: '/^Resource::<.*StatementsFunction.*\\.Arn>:\\*$/g' }],
      },
    ],
    true,
  );
  // The S3 notification's configuration is written by CDK's singleton custom resource (one per stack).
  const stack = Stack.of(parts.bucket);
  for (const child of stack.node.children)
    if (child.node.id.startsWith('BucketNotificationsHandler'))
      NagSuppressions.addResourceSuppressions(
        child,
        [
          {
            id: 'AwsSolutions-IAM4',
            reason:
              'CDK’s bucket notifications handler (a deployment-time custom resource of aws-cdk-lib) uses AWSLambdaBasicExecutionRole for its own logs.',
          },
          {
            id: 'AwsSolutions-IAM5',
            reason:
              'CDK’s bucket notifications handler calls s3:PutBucketNotification, which it is granted on "*" by aws-cdk-lib; it runs only at deployment.',
          },
        ],
        true,
      );
}
