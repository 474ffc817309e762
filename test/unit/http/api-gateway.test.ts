import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { MethodNotAllowedError } from '../../../shared/domain/errors';
import { toApiGatewayResult, toInboundRequest } from '../../../shared/http/api-gateway';
import { errorResponse, internalErrorResponse } from '../../../shared/http/error-mapping';
import { json } from '../../../shared/http/types';

function event(
  timeEpoch: number | undefined,
  body = '{"a":1}',
  isBase64Encoded = false,
): APIGatewayProxyEventV2 {
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: '/v1/momo/demo/requesttopay/abc',
    rawQueryString: 'x=1',
    headers: { 'Content-Type': 'application/json' },
    queryStringParameters: { x: '1' },
    isBase64Encoded,
    body,
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'example.execute-api.eu-west-1.amazonaws.com',
      domainPrefix: 'example',
      http: {
        method: 'put',
        path: '/v1/momo/demo/requesttopay/abc',
        protocol: 'HTTP/1.1',
        sourceIp: '198.51.100.7',
        userAgent: 'momo',
      },
      requestId: 'req-1',
      routeKey: '$default',
      stage: '$default',
      time: '23/Nov/2026:10:00:00 +0000',
      timeEpoch: timeEpoch as number,
    },
  };
}

const handled = new Date('2026-11-23T10:00:01.200Z');

describe('toInboundRequest', () => {
  it('carries the time the request waited before the handler (a cold start) for the ack budget', () => {
    const request = toInboundRequest(event(handled.getTime() - 1200), handled);

    expect(request.waitedMs).toBe(1200);
  });

  it('ignores an implausible wait: clock skew or a replayed event', () => {
    expect(toInboundRequest(event(handled.getTime() + 50), handled).waitedMs).toBeUndefined();
    expect(toInboundRequest(event(handled.getTime() - 3_600_000), handled).waitedMs).toBeUndefined();
    expect(toInboundRequest(event(undefined), handled).waitedMs).toBeUndefined();
  });

  it('lower-cases header names, upper-cases the method and decodes a base64 body', () => {
    const request = toInboundRequest(
      event(undefined, Buffer.from('{"b":2}').toString('base64'), true),
      handled,
    );

    expect(request.headers).toEqual({ 'content-type': 'application/json' });
    expect(request.method).toBe('PUT');
    expect(request.rawBody.toString('utf8')).toBe('{"b":2}');
    expect(request.sourceIp).toBe('198.51.100.7');
  });
});

describe('toApiGatewayResult', () => {
  it('adds no-store and nosniff to every answer, errors and the last-resort 500 included, keeping its own headers', () => {
    // Act
    const answers = [
      toApiGatewayResult(json(200, { ok: true })),
      toApiGatewayResult(errorResponse(new MethodNotAllowedError(['GET'], 'POST'))),
      toApiGatewayResult(internalErrorResponse('req-1')),
    ];
    // Assess
    for (const answer of answers)
      expect(answer.headers).toMatchObject({
        'cache-control': 'no-store',
        'x-content-type-options': 'nosniff',
        'content-type': 'application/json',
      });
    expect(answers[1]!.headers).toMatchObject({ allow: 'GET' });
  });
});
