import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { RelayMetrics } from '../../../shared/app/ports';
import { lambdaMiddlewares, useInvocationMetrics } from '../../../shared/runtime/lambda-middleware';

function recordingMetrics(): RelayMetrics & { flushes: number } {
  const metrics = {
    flushes: 0,
    count: vi.fn(),
    timing: vi.fn(),
    flush: () => {
      metrics.flushes++;
    },
  };
  return metrics;
}

const context = { awsRequestId: 'req-1', getRemainingTimeInMillis: () => 5000 } as unknown as Context;

afterEach(() => useInvocationMetrics(undefined));

describe('the middlewares every function starts with', () => {
  it('flushes the metrics after each invocation', async () => {
    // Prepare
    const metrics = recordingMetrics();
    useInvocationMetrics(metrics);
    const handler = middy(async () => {
      metrics.count('Work', 1);
      return 'done';
    }).use(lambdaMiddlewares());

    // Act
    await handler({}, context);
    await handler({}, context);

    // Assess
    expect(metrics.flushes).toBe(2);
  });

  it('flushes the metrics of a failed invocation and still fails it', async () => {
    const metrics = recordingMetrics();
    useInvocationMetrics(metrics);
    const handler = middy(async () => {
      throw new Error('store unavailable');
    }).use(lambdaMiddlewares());

    await expect(handler({}, context)).rejects.toThrow('store unavailable');

    expect(metrics.flushes).toBe(1);
  });

  it('never fails an invocation because the metrics could not be written', async () => {
    useInvocationMetrics({
      count: () => {},
      timing: () => {},
      flush: () => {
        throw new Error('EMF document over 100 metrics');
      },
    });
    const errors = vi.spyOn(console, 'error').mockImplementation(() => {});
    const handler = middy(async () => 'answered').use(lambdaMiddlewares());

    try {
      const result = await handler({}, context);

      expect(result).toBe('answered');
      expect(errors).toHaveBeenCalledWith(expect.stringContaining('metrics flush failed'));
    } finally {
      errors.mockRestore();
    }
  });

  it('adds no tracing segment outside Lambda', () => {
    // The metrics flush and the secrets refresh only: no tracing middleware.
    expect(lambdaMiddlewares()).toHaveLength(2);
  });
});
