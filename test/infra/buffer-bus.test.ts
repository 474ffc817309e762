import * as sqs from 'aws-cdk-lib/aws-sqs';
import * as targets from 'aws-cdk-lib/aws-events-targets';
import { describe, expect, it } from 'vitest';
import { BUFFER_MAX_RECEIVE_COUNT } from '../../shared/app/buffer/retry-backoff';
import { ofType, synthRelay } from './relay-synth';

const REDRIVER = 'arn:aws:iam::123456789012:role/relay-operator';
const built = synthRelay(
  'Hardening',
  () => ({ ingressBufferSenderArns: [REDRIVER] }),
  undefined,
  (relay, stack) => {
    relay.addSubscriber('Ledger', {
      detailTypes: ['TransactionSucceeded'],
      target: new targets.SqsQueue(new sqs.Queue(stack, 'PartnerInbox', { enforceSSL: true })),
    });
  },
);

const queue = (resources: typeof built.resources, pattern: RegExp) => {
  const found = ofType(resources, 'AWS::SQS::Queue').filter(([id]) => pattern.test(id));
  expect(found, String(pattern)).toHaveLength(1);
  return found[0]!;
};
const policyOf = (resources: typeof built.resources, queueId: string) =>
  ofType(resources, 'AWS::SQS::QueuePolicy').find(([, r]) =>
    r.Properties.Queues.some((q: any) => q.Ref === queueId),
  )![1].Properties.PolicyDocument.Statement as any[];

describe('buffer and bus hardening', () => {
  it('retains both buffer queues on stack deletion and dead-letters after the backoff receive count', () => {
    const [bufferId, buffer] = queue(built.resources, /^RelayIngressBuffer[0-9A-F]{8}$/);
    const [dlqId, dlq] = queue(built.resources, /^RelayIngressBufferDlq/);
    expect(buffer.DeletionPolicy).toBe('Retain');
    expect(dlq.DeletionPolicy).toBe('Retain');
    expect(buffer.Properties.RedrivePolicy).toEqual({
      deadLetterTargetArn: { 'Fn::GetAtt': [dlqId, 'Arn'] },
      maxReceiveCount: BUFFER_MAX_RECEIVE_COUNT,
    });
    expect(bufferId).toMatch(/IngressBuffer/);
  });

  it('lets only the callback role (and the named redrivers) send to the buffer', () => {
    const [bufferId] = queue(built.resources, /^RelayIngressBuffer[0-9A-F]{8}$/);
    const deny = policyOf(built.resources, bufferId).find((s) => s.Sid === 'OnlyTheCallbackRoleSends');
    expect(deny).toMatchObject({ Effect: 'Deny', Principal: { AWS: '*' }, Action: 'sqs:SendMessage' });
    const allowed = deny.Condition.ArnNotEquals['aws:PrincipalArn'];
    expect(JSON.stringify(allowed[0])).toMatch(/CallbackRole/);
    expect(allowed[1]).toBe(REDRIVER);
  });

  it('denies PutEvents with the relay source to every principal but the outbox publisher role', () => {
    const policies = ofType(built.resources, 'AWS::Events::EventBusPolicy').map(([, r]) => r.Properties);
    const relaySource = policies.find((p) => p.StatementId === 'OnlyTheOutboxPublisherPutsRelayEvents')!;
    expect(relaySource.Statement).toMatchObject({
      Effect: 'Deny',
      Principal: '*',
      Action: 'events:PutEvents',
      Condition: { 'ForAnyValue:StringEquals': { 'events:source': [built.relay.eventSource] } },
    });
    expect(JSON.stringify(relaySource.Statement.Condition.ArnNotEquals['aws:PrincipalArn'])).toMatch(
      /OutboxPublisherRole/,
    );
  });

  it('gives a subscriber rule retries, a DLQ and an alarm that pages on one message', () => {
    const [, rule] = ofType(built.resources, 'AWS::Events::Rule').find(([id]) =>
      /SubscribersLedger/.test(id),
    )!;
    const [target] = rule.Properties.Targets;
    expect(target.RetryPolicy).toEqual({ MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86400 });
    const [dlqId] = queue(built.resources, /SubscribersLedgerDlq/);
    expect(target.DeadLetterConfig).toEqual({ Arn: { 'Fn::GetAtt': [dlqId, 'Arn'] } });
    // EventBridge may send to it: the rule's ARN is the only source allowed.
    expect(JSON.stringify(policyOf(built.resources, dlqId))).toMatch(/events\.amazonaws\.com/);
    const [, alarm] = ofType(built.resources, 'AWS::CloudWatch::Alarm').find(([id]) =>
      /LedgerDlqAlarm/.test(id),
    )!;
    expect(alarm.Properties).toMatchObject({
      Threshold: 1,
      ComparisonOperator: 'GreaterThanOrEqualToThreshold',
    });
    expect(JSON.stringify(alarm.Properties.AlarmActions)).toMatch(/AlarmTopic/);
    expect(JSON.stringify(alarm.Properties.Dimensions)).toContain(dlqId);
    expect(built.relay.alarms.some((a) => /LedgerDlqAlarm/.test(a.node.id))).toBe(true);
  });

  it('stays cdk-nag clean with a subscriber', () => {
    // The partner's own inbox queue is the test's, not the relay's.
    expect(built.nagErrors.filter((e) => !e.includes('/PartnerInbox/'))).toEqual([]);
  });
});
