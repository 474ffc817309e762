import { describe, expect, it } from 'vitest';
import { checkAwsLimits } from './aws-limits';

type Resources = Record<string, { Type: string; Properties?: Record<string, any> }>;
const times = <T>(n: number, make: (i: number) => [string, T]) =>
  Object.fromEntries(Array.from({ length: n }, (_, i) => make(i)));

/** A template of just these resources: its problems. */
const problemsOf = (resources: Resources) => checkAwsLimits({ Resources: resources }).problems;

describe('the deploy-time limits aws-limits.ts adds (each over by one: named; at the limit: none)', () => {
  it("a function's resource-based policy: 20 KB of statements, one per permission", () => {
    const fn = { Type: 'AWS::Lambda::Function', Properties: { MemorySize: 512, Timeout: 10 } };
    const permissions = (n: number) =>
      times(n, (i) => [
        `Permission${i}`,
        {
          Type: 'AWS::Lambda::Permission',
          Properties: {
            FunctionName: { 'Fn::GetAtt': ['Fn', 'Arn'] },
            Action: 'lambda:InvokeFunction',
            Principal: 'apigateway.amazonaws.com',
            SourceArn: {
              'Fn::Join': [
                '',
                ['arn:aws:execute-api:eu-west-1:123456789012:', { Ref: 'Api' }, `/*/*/v1/r${i}`],
              ],
            },
          },
        },
      ]);
    expect(problemsOf({ Fn: fn, ...permissions(10) })).toEqual([]);
    expect(problemsOf({ Fn: fn, ...permissions(60) })).toEqual([
      expect.stringMatching(/^resource-based policy of Fn \(bytes\): \d+ > 20480$/),
    ]);
  });

  it('a queue policy: 20 statements, 8,192 bytes', () => {
    const policy = (n: number) => ({
      Type: 'AWS::SQS::QueuePolicy',
      Properties: {
        PolicyDocument: {
          Statement: times(n, (i) => [`s${i}`, { Effect: 'Allow', Action: 'sqs:SendMessage' }]),
        },
      },
    });
    const fix = (p: ReturnType<typeof policy>) => ({
      ...p,
      Properties: { PolicyDocument: { Statement: Object.values(p.Properties.PolicyDocument.Statement) } },
    });
    expect(problemsOf({ Q: fix(policy(20)) })).toEqual([]);
    expect(problemsOf({ Q: fix(policy(21)) })).toEqual(['statements of queue policy Q: 21 > 20']);
  });

  it('rules per bus (300), an alarm name (255 characters), the reserved concurrency of a stack (900)', () => {
    const rules = times(301, (i) => [
      `Rule${i}`,
      { Type: 'AWS::Events::Rule', Properties: { EventBusName: { Ref: 'Bus' }, Targets: [{}] } },
    ]);
    const alarm = {
      Type: 'AWS::CloudWatch::Alarm',
      Properties: { AlarmName: 'a'.repeat(256), AlarmActions: [] },
    };
    const fn = (reserved: number) => ({
      Type: 'AWS::Lambda::Function',
      Properties: { ReservedConcurrentExecutions: reserved },
    });
    expect(problemsOf({ ...rules, Alarm: alarm, F1: fn(500), F2: fn(401) })).toEqual([
      'reserved concurrency of the stack (executions): 901 > 900',
      'rules on bus Bus: 301 > 300',
      'AlarmName of Alarm (characters): 256 > 255',
    ]);
  });
});
