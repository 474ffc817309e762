import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { Context } from 'aws-lambda';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import * as shim from '../../../infra/lambda-shims/powertools-logger';
import * as shimMiddleware from '../../../infra/lambda-shims/powertools-logger-middleware';
import { scrubbingLogger } from '../../../shared/app/services';
import { RelayLogFormatter } from '../../../shared/runtime/log-format';
import { createScrubber } from '../../../shared/util/redact';

/*
 * Every Lambda bundle replaces Powertools Logger (and its middy middleware) with
 * infra/lambda-shims/powertools-logger.ts (esbuild alias, infra/bundling.ts). Here the package's classes and
 * the shim are driven with the same calls, with the relay's formatter: what they write on stdout and
 * stderr must be the same, line for line.
 */

type Written = { stdout: string[]; stderr: string[] };

function written(run: () => void | Promise<void>): Promise<Written> {
  const out: Written = { stdout: [], stderr: [] };
  const capture = (into: string[]) => (chunk: string | Uint8Array) => {
    into.push(String(chunk));
    return true;
  };
  const spies = [
    vi.spyOn(process.stdout, 'write').mockImplementation(capture(out.stdout)),
    vi.spyOn(process.stderr, 'write').mockImplementation(capture(out.stderr)),
    // With POWERTOOLS_DEV both write through the global console (which vitest takes over).
    ...(['debug', 'info', 'log'] as const).map((name) =>
      vi.spyOn(console, name).mockImplementation((line: string) => void out.stdout.push(line)),
    ),
    ...(['warn', 'error'] as const).map((name) =>
      vi.spyOn(console, name).mockImplementation((line: string) => void out.stderr.push(line)),
    ),
  ];
  return Promise.resolve()
    .then(run)
    .then(() => out)
    .finally(() => {
      for (const spy of spies) spy.mockRestore();
    });
}

type LoggerClass = new (options?: ConstructorParameters<typeof Logger>[0]) => Logger;
type Middleware = typeof injectLambdaContext;

/** The same calls on the package's classes and on the shim's. */
async function both(run: (Class: LoggerClass, middleware: Middleware) => void | Promise<void>) {
  const real = await written(() => run(Logger, injectLambdaContext));
  const slim = await written(() =>
    run(shim.Logger as unknown as LoggerClass, shimMiddleware.injectLambdaContext as unknown as Middleware),
  );
  return { real, slim };
}

const CONTEXT = {
  awsRequestId: '8f5c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f',
  invokedFunctionArn: 'arn:aws:lambda:us-east-1:123456789012:function:Relay-Callback',
  functionName: 'Relay-Callback',
  memoryLimitInMB: '512',
  functionVersion: '$LATEST',
} as unknown as Context;

const relayLogger = (Class: LoggerClass, logLevel?: 'DEBUG' | 'INFO' | 'WARN') =>
  new Class({ serviceName: 'relay-callback', logLevel, logFormatter: new RelayLogFormatter() });

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['Date'] });
  vi.setSystemTime(new Date('2026-11-29T10:00:00.123Z'));
  vi.stubEnv('TZ', 'UTC');
  for (const name of [
    'POWERTOOLS_DEV',
    'POWERTOOLS_LOG_LEVEL',
    'LOG_LEVEL',
    'AWS_LAMBDA_LOG_LEVEL',
    '_X_AMZN_TRACE_ID',
    'AWS_LAMBDA_INITIALIZATION_TYPE',
  ])
    vi.stubEnv(name, undefined);
});

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
});

describe('powertools-logger shim (every Lambda bundle) against Powertools Logger', () => {
  it('writes the same lines: context, cold start on the first only, trace id when sampled, extras', async () => {
    // Prepare
    vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'on-demand');
    vi.stubEnv(
      '_X_AMZN_TRACE_ID',
      'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
    );

    // Act
    const { real, slim } = await both((Class) => {
      const logger = relayLogger(Class);
      logger.info('before any invocation');
      logger.addContext(CONTEXT);
      logger.info('callback handled', { provider: 'momo', statusCode: 200 }, { nested: { a: [1, 2] } });
      logger.addContext(CONTEXT);
      logger.warn({ message: 'as an object', route: 'callback' }, 'a string extra');
      logger.debug('below the level');
    });

    // Assess
    expect(real.stdout.length).toBe(2);
    expect(JSON.parse(real.stdout[1]!)).toMatchObject({
      cold_start: true,
      xray_trace_id: expect.any(String),
    });
    expect(real.stderr.length).toBe(1);
    expect(slim).toEqual(real);
  });

  it('formats errors (with their cause), bigints and circular references alike, and drops reserved keys', async () => {
    // Prepare: the same objects for both (an error's stack and location say where it was made)
    const cycle: Record<string, unknown> = { name: 'loop' };
    cycle.self = cycle;
    const error = Object.assign(new Error('store down', { cause: new TypeError('socket hang up') }), {
      code: 'ECONNRESET',
    });
    const extra = new RangeError('as an extra');

    // Act
    const { real, slim } = await both((Class) => {
      const logger = relayLogger(Class);
      logger.error('unhandled error', { error }, extra as never, { big: 12n, cycle });
      logger.info('reserved', { level: 'x', service: 'y', kept: true });
      logger.critical('critical goes to stderr');
      logger.error('null extras skipped', null as never, undefined as never);
    });

    // Assess
    expect(JSON.parse(real.stderr[0]!).error).toMatchObject({ name: 'RangeError', message: 'as an extra' });
    expect(real.stdout.some((line) => line.includes('reserved key'))).toBe(false);
    expect(real.stderr.some((line) => line.includes('"The key \\"level\\" is a reserved key'))).toBe(true);
    expect(slim).toEqual(real);
  });

  it.each([
    { name: 'the constructor’s level', env: {}, level: 'DEBUG' as const },
    { name: 'LOG_LEVEL when the constructor has none', env: { LOG_LEVEL: 'WARN' }, level: undefined },
    {
      name: 'POWERTOOLS_LOG_LEVEL before LOG_LEVEL',
      env: { POWERTOOLS_LOG_LEVEL: 'DEBUG', LOG_LEVEL: 'ERROR' },
      level: undefined,
    },
    {
      name: 'Lambda’s own level over the constructor’s, with a warning',
      env: { AWS_LAMBDA_LOG_LEVEL: 'WARN' },
      level: 'DEBUG' as const,
    },
    { name: 'Lambda’s FATAL as CRITICAL', env: { AWS_LAMBDA_LOG_LEVEL: 'FATAL' }, level: 'INFO' as const },
  ])('chooses the same level: $name', async ({ env, level }) => {
    // Prepare
    for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);

    // Act
    const { real, slim } = await both((Class) => {
      const logger = relayLogger(Class, level);
      logger.trace('trace');
      logger.debug('debug');
      logger.info('info');
      logger.warn('warn');
      logger.error('error');
      logger.critical('critical');
    });

    // Assess
    expect(real.stdout.length + real.stderr.length).toBeGreaterThan(0);
    expect(slim).toEqual(real);
  });

  it('writes indented lines through the global console with POWERTOOLS_DEV', async () => {
    // Prepare
    vi.stubEnv('POWERTOOLS_DEV', 'true');

    // Act
    const { real, slim } = await both((Class) => relayLogger(Class).info('dev', { a: 1 }));

    // Assess
    expect(real.stdout[0]).toContain('\n    "level"');
    expect(slim).toEqual(real);
  });

  it('adds the context in the middy chain and resets the temporary keys after each invocation, through the scrubbing logger', async () => {
    // Prepare
    vi.stubEnv('AWS_LAMBDA_INITIALIZATION_TYPE', 'on-demand');

    // Act
    const { real, slim } = await both(async (Class, middleware) => {
      const logger = relayLogger(Class);
      const log = scrubbingLogger(logger, createScrubber(['path-secret-0123456789abcdef']));
      let first = true;
      const handler = middy(async () => {
        if (first) logger.appendKeys({ once: 'first invocation only' });
        first = false;
        log.info('refused /v1/momo/demo/path-secret-0123456789abcdef/x');
        throw new Error('boom');
      }).use(middleware(logger, { resetKeys: true }));
      for (let i = 0; i < 2; i++) await handler({}, CONTEXT).catch(() => undefined);
    });

    // Assess
    expect(real.stdout.map((line) => JSON.parse(line))).toMatchObject([
      { once: 'first invocation only', cold_start: true, request_id: CONTEXT.awsRequestId },
      { request_id: CONTEXT.awsRequestId },
    ]);
    expect(JSON.parse(real.stdout[1]!)).not.toHaveProperty('once');
    expect(real.stdout.join('')).not.toContain('path-secret-0123456789abcdef');
    expect(slim).toEqual(real);
  });
});
