import { Names } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as xray from 'aws-cdk-lib/aws-xray';
import type { Construct } from 'constructs';

/**
 * Share of the hot path's invocations traced: 5% of callbacks and of outbox publications, none from the
 * reservoir. X-Ray's default rule (1 a second, then 5%) traces nearly every callback below a few a
 * second (about 84% at a million a month), $5 per million traces beyond the free 100,000 (docs/deploy.md,
 * "Cost notes").
 */
export const HOT_PATH_TRACE_RATE = 0.05;

/** Ahead of X-Ray's default rule (priority 10000), behind rules an operator adds with a lower number. */
export const HOT_PATH_SAMPLING_PRIORITY = 9000;

/**
 * One X-Ray sampling rule per hot-path function (the ones invoked once per callback or transaction),
 * matching its function name. Active tracing asks X-Ray for the decision when no upstream header decides
 * it (HTTP APIs send none; TracingConfig, Lambda API reference). The poller and the buffer consumer keep
 * the default rule: 43,200 poll cycles a month stay inside the free tier, and a buffer drain is rare and
 * worth tracing whole.
 */
export function sampleHotPathTraces(
  scope: Construct,
  functions: ReadonlyArray<lambda.IFunction>,
  fixedRate = HOT_PATH_TRACE_RATE,
): xray.CfnSamplingRule[] {
  return functions.map((fn) => {
    // Unique per stack and construct path, within X-Ray's 32 characters (names are account-wide).
    const ruleName = Names.uniqueResourceName(fn, { maxLength: 32, separator: '-' });
    return new xray.CfnSamplingRule(fn, 'TraceSampling', {
      samplingRule: {
        ruleName,
        priority: HOT_PATH_SAMPLING_PRIORITY,
        fixedRate,
        reservoirSize: 0,
        serviceName: fn.functionName,
        serviceType: '*',
        host: '*',
        httpMethod: '*',
        urlPath: '*',
        resourceArn: '*',
        version: 1,
      },
    });
  });
}
