import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { scrubbingLogger } from '../../../shared/app/services';
import { createScrubber } from '../../../shared/util/redact';
import { RelayLogFormatter } from '../../../shared/runtime/log-format';

const SECRET = 'path-secret-0123456789abcdef';
const CONTEXT = {
  awsRequestId: '8f5c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f',
  invokedFunctionArn:
    'arn:aws:lambda:us-east-1:123456789012:function:MobileMoneyRelay-CallbackFunction-AbCdEf',
  functionName: 'MobileMoneyRelay-CallbackFunction-AbCdEf',
  memoryLimitInMB: '512',
  functionVersion: '$LATEST',
} as unknown as Context;

/** The lines a Powertools logger with the relay's formatter writes, parsed. */
function capture(trace?: string) {
  const lines: string[] = [];
  for (const stream of [process.stdout, process.stderr])
    vi.spyOn(stream, 'write').mockImplementation((chunk) => (lines.push(String(chunk)), true));
  if (trace) vi.stubEnv('_X_AMZN_TRACE_ID', trace);
  const logger = new Logger({
    serviceName: 'relay-callback',
    logLevel: 'INFO',
    logFormatter: new RelayLogFormatter(),
  });
  logger.addContext(CONTEXT);
  return { logger, lines: () => lines.map((line) => JSON.parse(line) as Record<string, unknown>) };
}

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllEnvs();
});

describe('the functions’ log line', () => {
  it('names the request and leaves out what the log group already says', () => {
    // Prepare
    const { logger, lines } = capture(
      'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=0',
    );

    // Act
    logger.info('callback handled', {
      provider: 'momo',
      account: 'demo',
      route: 'callback',
      statusCode: 200,
    });

    // Assess
    const [line] = lines();
    expect(line).toMatchObject({
      level: 'INFO',
      message: 'callback handled',
      service: 'relay-callback',
      request_id: CONTEXT.awsRequestId,
      provider: 'momo',
      account: 'demo',
      route: 'callback',
      statusCode: 200,
    });
    for (const dropped of [
      'function_arn',
      'function_name',
      'function_memory_size',
      'sampling_rate',
      'xray_trace_id',
    ])
      expect(line).not.toHaveProperty(dropped);
  });

  it('keeps the trace id when the invocation is traced', () => {
    // Prepare
    const { logger, lines } = capture(
      'Root=1-5759e988-bd862e3fe1be46a994272793;Parent=53995c3f42cd8ad8;Sampled=1',
    );

    // Act
    logger.info('callback handled');

    // Assess
    expect(lines()[0]!.xray_trace_id).toBe('1-5759e988-bd862e3fe1be46a994272793');
  });

  it('still masks secrets through the scrubbing logger', () => {
    // Prepare
    const { logger, lines } = capture();
    // The scrubber the functions build from their configured secrets (shared/runtime/lambda.ts).
    const log = scrubbingLogger(logger, createScrubber([SECRET]));

    // Act
    log.error(`refused /v1/momo/demo/${SECRET}/requesttopay`, { path: `/x/${SECRET}` });

    // Assess
    const text = JSON.stringify(lines());
    expect(text).not.toContain(SECRET);
    expect(text).toContain('refused');
  });
});
