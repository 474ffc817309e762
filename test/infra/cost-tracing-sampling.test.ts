import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { describe, expect, it } from 'vitest';
import { HOT_PATH_TRACE_RATE, sampleHotPathTraces } from '../../infra/relay/tracing-sampling';

function stackWithFunctions(app: App, id: string) {
  const stack = new Stack(app, id);
  const fn = (name: string) =>
    new lambda.Function(stack, name, {
      runtime: lambda.Runtime.NODEJS_22_X,
      handler: 'index.handler',
      code: lambda.Code.fromInline('exports.handler = async () => ({})'),
      tracing: lambda.Tracing.ACTIVE,
    });
  return {
    stack,
    callback: fn('CallbackFunction'),
    publisher: fn('OutboxPublisherFunction'),
    poller: fn('PollerFunction'),
  };
}

describe('hot-path trace sampling', () => {
  it('samples each hot-path function at 5% with no reservoir, by its function name', () => {
    // Prepare
    const { stack, callback, publisher } = stackWithFunctions(new App(), 'Relay');

    // Act
    sampleHotPathTraces(stack, [callback, publisher]);

    // Assess
    const template = Template.fromStack(stack);
    template.resourceCountIs('AWS::XRay::SamplingRule', 2);
    for (const fn of [callback, publisher]) {
      template.hasResourceProperties('AWS::XRay::SamplingRule', {
        SamplingRule: Match.objectLike({
          FixedRate: HOT_PATH_TRACE_RATE,
          ReservoirSize: 0,
          ServiceName: { Ref: stack.getLogicalId(fn.node.defaultChild as lambda.CfnFunction) },
        }),
      });
    }
  });

  it('names the rules uniquely per stack within X-Ray’s 32 characters', () => {
    // Prepare
    const app = new App();
    const one = stackWithFunctions(app, 'PaymentsRelayProductionEuWest1');
    const two = stackWithFunctions(app, 'PaymentsRelayStagingEuWest1');

    // Act
    const names = [
      ...sampleHotPathTraces(one.stack, [one.callback, one.publisher]),
      ...sampleHotPathTraces(two.stack, [two.callback, two.publisher]),
    ].map((rule) => (rule.samplingRule as { ruleName: string }).ruleName);

    // Assess
    expect(new Set(names).size).toBe(4);
    for (const name of names) expect(name.length).toBeLessThanOrEqual(32);
  });
});
