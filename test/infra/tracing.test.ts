import { describe, expect, it } from 'vitest';
import { ofType, synthRelay } from './relay-synth';

/** Each relay function's tracing mode, by its POWERTOOLS_SERVICE_NAME. */
function tracingModes(resources: ReturnType<typeof synthRelay>['resources']): Record<string, string> {
  return Object.fromEntries(
    ofType(resources, 'AWS::Lambda::Function')
      .filter(([, fn]) => fn.Properties.Environment?.Variables?.POWERTOOLS_SERVICE_NAME)
      .map(([, fn]) => [
        fn.Properties.Environment.Variables.POWERTOOLS_SERVICE_NAME,
        fn.Properties.TracingConfig?.Mode,
      ]),
  );
}

describe('hot-path tracing', () => {
  it('traces only the poller, the buffer consumer and the statements function by default, with no X-Ray sampling rule', () => {
    // Act
    const { resources } = synthRelay('TracingDefault');

    // Assess: Lambda ignores sampling rules for its function segment, so none is deployed
    expect(tracingModes(resources)).toEqual({
      'relay-callback': 'PassThrough',
      'relay-c2b-validation': 'PassThrough',
      'relay-management': 'PassThrough',
      'relay-outbox-publisher': 'PassThrough',
      'relay-transaction-initiated': 'PassThrough',
      'relay-poller': 'Active',
      'relay-buffer-consumer': 'Active',
      // Hourly closes and the odd upload: tracing it costs nothing that matters.
      'relay-statements': 'Active',
    });
    expect(ofType(resources, 'AWS::XRay::SamplingRule')).toHaveLength(0);
  });

  it('traces every function actively with hotPathTracing on, the tracer loaded everywhere', () => {
    // Act
    const { resources } = synthRelay('TracingOn', () => ({ hotPathTracing: true }));

    // Assess
    expect(new Set(Object.values(tracingModes(resources)))).toEqual(new Set(['Active']));
    for (const [, fn] of ofType(resources, 'AWS::Lambda::Function'))
      expect(fn.Properties.Environment?.Variables?.POWERTOOLS_TRACE_ENABLED).toBeUndefined();
  });
});
