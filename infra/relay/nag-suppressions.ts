import type * as apigwv2 from 'aws-cdk-lib/aws-apigatewayv2';
import type * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import type * as iam from 'aws-cdk-lib/aws-iam';
import type * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { NagSuppressions } from 'cdk-nag';
import { namedRelayFunctions, type RelayFunctions } from './functions';
import type { RelayCloudFrontEdge } from './props';
import { inParentheses, inWords, providerWords } from './providers';

/** Every suppression names the resource it is about and why the finding does not apply. */
export function suppressRelayFindings(parts: {
  functions: RelayFunctions;
  api: apigwv2.HttpApi;
  /** The per-provider and decision routes: public like `$default`. */
  publicRoutes: apigwv2.HttpRoute[];
  /** Absent when the config names a secret member for the seal key (nothing generated). */
  ingressBufferSealKey: secretsmanager.Secret | undefined;
  outboxDlq: sqs.Queue;
  pollScheduleDlq: sqs.Queue;
  transactionInitiatedDlq: sqs.Queue;
  ingressBufferDlq: sqs.Queue;
  pollScheduleRole: iam.Role;
}): void {
  const fns = parts.functions;
  if (parts.ingressBufferSealKey)
    NagSuppressions.addResourceSuppressions(parts.ingressBufferSealKey, [
      {
        id: 'AwsSolutions-SMG4',
        reason:
          'The ingress buffer seal key is an HMAC key between two functions of this stack, never given to a person or a provider. Rotating it would make the messages sealed with the old key, still in the queue or its DLQ (up to 14 days), unappliable; replace it by hand after the queues are empty (docs/ingress-buffer.md).',
      },
    ]);
  const defaultRoute = parts.api.node.findChild('DefaultRoute');
  NagSuppressions.addResourceSuppressions(
    [defaultRoute, ...parts.publicRoutes],
    [
      {
        id: 'AwsSolutions-APIG4',
        reason: `The $default route and the per-provider routes (one each for its own throttle, and the decision routes) receive mobile-money provider callbacks. Providers (${providerWords.all()}) cannot sign requests or send IAM/JWT credentials; the callback handler authenticates each request itself (${['per-account path secret compared in constant time', ...providerWords.callbackChecks()].join(', ')}) and quarantines rejected ones.`,
      },
    ],
  );
  for (const [, fn] of namedRelayFunctions(fns)) {
    NagSuppressions.addResourceSuppressions(fn, [
      {
        id: 'AwsSolutions-L1',
        reason:
          'The runtime is pinned to Node.js 22 by the project contract (design.md: "Lambda runtime: Node.js 22, ARM64"); dependencies and bundles are tested against it. Moving to a newer runtime is a deliberate, tested upgrade.',
      },
    ]);
  }
  for (const fn of [fns.callback, fns.management, fns.poller, fns.transactionInitiated, fns.bufferConsumer]) {
    NagSuppressions.addResourceSuppressions(
      fn.role!,
      [
        {
          id: 'AwsSolutions-IAM5',
          reason:
            'Active X-Ray tracing needs xray:PutTraceSegments and xray:PutTelemetryRecords, which support no resource-level permissions (Resource "*"). Table access is limited to item actions on the relay table ARN (and the named indexes a function queries).',
          appliesTo: ['Resource::*'],
        },
      ],
      true,
    );
  }
  NagSuppressions.addResourceSuppressions(
    fns.outboxPublisher.role!,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'xray:PutTraceSegments/PutTelemetryRecords (active tracing) and dynamodb:ListStreams (stream event source) support no resource-level permissions (Resource "*"). Stream reads are limited to the table stream ARN and events:PutEvents to the relay bus.',
        appliesTo: ['Resource::*'],
      },
    ],
    true,
  );
  const dlqs: Array<[sqs.Queue, string]> = [
    [
      parts.outboxDlq,
      'the on-failure destination of the outbox stream event source mapping. A DLQ of a DLQ would only hide failures; the OutboxDlq alarm pages on one message.',
    ],
    [
      parts.pollScheduleDlq,
      'poll cycles EventBridge Scheduler could not hand to the poller function. A DLQ of a DLQ would only hide failures; the PollScheduleDlq alarm pages on one message.',
    ],
    [
      parts.transactionInitiatedDlq,
      'TransactionInitiated events the rule could not deliver or the function could not register. A DLQ of a DLQ would only hide failures; the TransactionInitiatedDlq alarm pages on one message.',
    ],
    [
      parts.ingressBufferDlq,
      'buffered callbacks the buffer consumer could not apply after 5 receives (redrive policy of the IngressBuffer queue). A DLQ of a DLQ would only hide failures; the IngressBuffer DLQ alarm pages on one message.',
    ],
  ];
  for (const [queue, what] of dlqs) {
    NagSuppressions.addResourceSuppressions(queue, [
      { id: 'AwsSolutions-SQS3', reason: `This queue is itself a dead-letter queue: ${what}` },
    ]);
  }
  NagSuppressions.addResourceSuppressions(
    parts.pollScheduleRole,
    [
      {
        id: 'AwsSolutions-IAM5',
        reason:
          'lambda:InvokeFunction is granted on the poller function and its qualified ARNs (<function ARN>:*, versions and aliases of this one function), as Function.grantInvoke does; no other function or action.',
        appliesTo: [{ regex: '/^Resource::<.*PollerFunction.*\\.Arn>:\\*$/g' }],
      },
    ],
    true,
  );
}

/** The CloudFront edge's findings that do not apply, given how it is configured. */
export function suppressEdgeFindings(distribution: cloudfront.Distribution, edge: RelayCloudFrontEdge): void {
  const suppressions = [
    {
      id: 'AwsSolutions-CFR1',
      reason: `The relay CloudFront distribution serves mobile-money provider callbacks: providers call from their own networks, whose countries are not documented and change; a geo restriction would refuse real callbacks${inParentheses(providerWords.doesNotRetry())}. ${inWords(['Path secrets', ...providerWords.callbackChecks().map((check) => `the ${check}`)])} authenticate callbacks instead.`,
    },
    {
      id: 'AwsSolutions-CFR3',
      reason:
        'CloudFront standard access logs of the relay distribution would record every request URI, and provider callback paths carry per-account path secrets; the API stage access log deliberately omits the path. Every callback is kept as a receipt or in quarantine (with the viewer IP), and the web ACL has CloudWatch metrics and sampled requests.',
    },
  ];
  if (!edge.certificate) {
    suppressions.push({
      id: 'AwsSolutions-CFR4',
      reason:
        'The relay distribution uses its *.cloudfront.net default certificate, with which CloudFront cannot enforce a minimum TLS version; give cloudFront.domainNames and a us-east-1 certificate to require TLS 1.2 (TLSv1.2_2021). The origin connection is HTTPS with TLS 1.2 only.',
    });
  }
  if (!edge.webAclArn) {
    suppressions.push({
      id: 'AwsSolutions-CFR2',
      reason: `The relay distribution was created without cloudFront.webAclArn (the construct warns at synth): deploy RelayEdgeWebAclStack in us-east-1 and pass its WebAclArn. Callbacks are still authenticated by the relay (${['origin secret', 'path secrets', ...providerWords.callbackChecks()].join(', ')}).`,
    });
  }
  NagSuppressions.addResourceSuppressions(distribution, suppressions);
}
