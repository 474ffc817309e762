import { Duration } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import { Match } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { ofType, sharedRelay, synthRelay } from './relay-synth';

const { template, resources, nagErrors } = sharedRelay();
const functionId = (service: string) =>
  ofType(resources, 'AWS::Lambda::Function').find(
    ([, r]) => r.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME === service,
  )![0];
const bucketId = () =>
  ofType(resources, 'AWS::S3::Bucket').find(([id]) => id.includes('StatementBucket'))![0];
const alarmNamed = (suffix: string) =>
  ofType(resources, 'AWS::CloudWatch::Alarm').find(([, r]) =>
    String(r.Properties.AlarmName).endsWith(`-${suffix}`),
  )?.[1].Properties;

describe('statement files in AWS: the bucket', () => {
  it('is private, SSE-S3 encrypted, TLS only, with the documented lifecycle', () => {
    // Prepare
    const bucket = resources[bucketId()]!;
    // Assess
    expect(bucket.Properties).toMatchObject({
      PublicAccessBlockConfiguration: {
        BlockPublicAcls: true,
        BlockPublicPolicy: true,
        IgnorePublicAcls: true,
        RestrictPublicBuckets: true,
      },
      BucketEncryption: {
        ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }],
      },
      OwnershipControls: { Rules: [{ ObjectOwnership: 'BucketOwnerEnforced' }] },
    });
    expect(bucket.DeletionPolicy).toBe('Retain');
    const rules = bucket.Properties.LifecycleConfiguration.Rules;
    expect(rules).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          Prefix: 'statements/',
          ExpirationInDays: 400,
          Transitions: [{ StorageClass: 'STANDARD_IA', TransitionInDays: 30 }],
          Status: 'Enabled',
        }),
        expect.objectContaining({ Prefix: 'reports/', ExpirationInDays: 30, Status: 'Enabled' }),
        expect.objectContaining({ AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } }),
      ]),
    );
    // TLS only: the bucket policy denies any request without it.
    template.hasResourceProperties('AWS::S3::BucketPolicy', {
      Bucket: { Ref: bucketId() },
      PolicyDocument: {
        Statement: Match.arrayWith([
          Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
        ]),
      },
    });
  });

  it('starts the statements function on objects created under statements/ only', () => {
    template.hasResourceProperties('Custom::S3BucketNotifications', {
      BucketName: { Ref: bucketId() },
      NotificationConfiguration: {
        LambdaFunctionConfigurations: [
          {
            Events: ['s3:ObjectCreated:*'],
            Filter: { Key: { FilterRules: [{ Name: 'prefix', Value: 'statements/' }] } },
            LambdaFunctionArn: { 'Fn::GetAtt': [functionId('relay-statements'), 'Arn'] },
          },
        ],
      },
    });
    template.hasResourceProperties('AWS::Lambda::Permission', {
      FunctionName: { 'Fn::GetAtt': [functionId('relay-statements'), 'Arn'] },
      Principal: 's3.amazonaws.com',
      SourceArn: { 'Fn::GetAtt': [bucketId(), 'Arn'] },
    });
  });

  it('lets the function read the uploads and write the reports, nothing else in the bucket', () => {
    // Prepare
    const fn = resources[functionId('relay-statements')]!.Properties;
    const role = fn.Role['Fn::GetAtt'][0];
    const statements = ofType(resources, 'AWS::IAM::Policy')
      .filter(([, p]) => p.Properties.Roles.some((r: { Ref: string }) => r.Ref === role))
      .flatMap(([, p]) => p.Properties.PolicyDocument.Statement);
    const s3 = statements.filter((s: { Action: string | string[] }) => String(s.Action).startsWith('s3:'));
    // Assess
    expect(s3).toEqual([
      expect.objectContaining({
        Action: 's3:GetObject',
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId(), 'Arn'] }, '/statements/*']] },
      }),
      expect.objectContaining({
        Action: 's3:PutObject',
        Resource: { 'Fn::Join': ['', [{ 'Fn::GetAtt': [bucketId(), 'Arn'] }, '/reports/*']] },
      }),
    ]);
    expect(fn.Timeout).toBe(300);
    expect(fn.Environment.Variables.TABLE_NAME).toBeDefined();
  });
});

describe('statement files in AWS: the scheduled close', () => {
  it('invokes the statements function every hour with the close input, through a role of its own', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 hour)',
      State: 'ENABLED',
      Target: {
        Arn: { 'Fn::GetAtt': [functionId('relay-statements'), 'Arn'] },
        RoleArn: { 'Fn::GetAtt': [Match.stringLikeRegexp('DayCloseScheduleRole'), 'Arn'] },
        Input: JSON.stringify({ action: 'close-days' }),
        RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 900 },
      },
    });
  });

  it('follows dayCloseInterval and statementFileRetention', () => {
    // Act
    const { template: custom, resources: customResources } = synthRelay('StatementProps', () => ({
      dayCloseInterval: Duration.minutes(30),
      statementFileRetention: Duration.days(45),
    }));
    // Assess
    custom.hasResourceProperties('AWS::Scheduler::Schedule', { ScheduleExpression: 'rate(30 minutes)' });
    const bucket = ofType(customResources, 'AWS::S3::Bucket').find(([id]) =>
      id.includes('StatementBucket'),
    )![1];
    const files = bucket.Properties.LifecycleConfiguration.Rules.find(
      (r: { Prefix?: string }) => r.Prefix === 'statements/',
    );
    // Kept 45 days: no move to Standard-IA (it needs 30 days in Standard and bills 30 more).
    expect(files).toMatchObject({ ExpirationInDays: 45 });
    expect(files.Transitions).toBeUndefined();
    custom.hasResourceProperties('AWS::CloudWatch::Alarm', {
      AlarmName: Match.stringLikeRegexp('-DayCloseOverdue$'),
      Period: 1800,
    });
  });
});

describe('statement files in AWS: alarms', () => {
  it('tickets a refused upload', () => {
    const alarm = alarmNamed('StatementImportRefused')!;
    expect(alarm).toMatchObject({
      MetricName: 'StatementImportsRefused',
      Statistic: 'Sum',
      Period: 300,
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
      TreatMissingData: 'notBreaching',
    });
    expect(JSON.stringify(alarm.AlarmActions)).toMatch(/TicketTopic/);
    expect(alarm.AlarmDescription).toMatch(/^\[ticket\].*row and the column/);
  });

  it('keeps an invocation that failed every try in a queue and tickets it (never dropped by Lambda)', () => {
    // Prepare
    const queueId = ofType(resources, 'AWS::SQS::Queue').find(([id]) => id.includes('StatementFailures'))![0];
    // Assess: two retries, then the event goes to the queue.
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', {
      FunctionName: { Ref: functionId('relay-statements') },
      MaximumRetryAttempts: 2,
      DestinationConfig: { OnFailure: { Destination: { 'Fn::GetAtt': [queueId, 'Arn'] } } },
    });
    expect(resources[queueId]!.Properties).toMatchObject({ SqsManagedSseEnabled: true });
    const alarm = alarmNamed('StatementInvocationFailed')!;
    expect(alarm).toMatchObject({
      MetricName: 'ApproximateNumberOfMessagesVisible',
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    expect(JSON.stringify(alarm.Dimensions)).toContain(queueId);
    expect(JSON.stringify(alarm.AlarmActions)).toMatch(/TicketTopic/);
    expect(alarm.AlarmDescription).toMatch(/^\[ticket\].*upload the same file again/);
  });

  it('tickets a day not closed by its SLA, and a scheduled close that stopped running', () => {
    const alarm = alarmNamed('DayCloseOverdue')!;
    expect(alarm).toMatchObject({
      MetricName: 'StatementDaysOverdue',
      Statistic: 'Maximum',
      Period: 3600,
      EvaluationPeriods: 2,
      DatapointsToAlarm: 2,
      TreatMissingData: 'breaching',
    });
    expect(JSON.stringify(alarm.AlarmActions)).toMatch(/TicketTopic/);
    expect(JSON.stringify(alarm.OKActions)).toMatch(/TicketTopic/);
  });
});

describe('statement files in AWS: who may upload', () => {
  it('grantStatementUpload allows PutObject under statements/ and reading the reports, nothing more', () => {
    // Act
    const { resources: granted } = synthRelay('StatementUploaders', undefined, undefined, (relay, stack) => {
      const finance = new iam.Role(stack, 'FinanceUploader', { assumedBy: new iam.AccountRootPrincipal() });
      relay.grantStatementUpload(finance);
    });
    // Assess
    const policy = ofType(granted, 'AWS::IAM::Policy').find(([, p]) =>
      p.Properties.Roles.some((r: { Ref: string }) => r.Ref.startsWith('FinanceUploader')),
    )![1];
    const text = JSON.stringify(policy.Properties.PolicyDocument.Statement);
    expect(text).toMatch(/s3:PutObject/);
    expect(text).toMatch(/\/statements\/\*/);
    expect(text).toMatch(/\/reports\/\*/);
    expect(text).not.toMatch(/s3:DeleteObject/);
  });
});

describe('statement files in AWS: cdk-nag', () => {
  it('adds no unsuppressed AwsSolutions error', () => {
    expect(nagErrors).toEqual([]);
  });
});
