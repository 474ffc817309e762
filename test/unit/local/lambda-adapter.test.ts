import { IncomingMessage } from 'node:http';
import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { requestUrl, sourceIpOf, toApiGatewayEvent } from '../../../local/lambda-adapter';

function incoming(
  method: string,
  url: string,
  headers: Record<string, string>,
  remote = '::ffff:10.1.2.3',
): IncomingMessage {
  const socket = new Socket();
  Object.defineProperty(socket, 'remoteAddress', { value: remote });
  const request = new IncomingMessage(socket);
  request.method = method;
  request.url = url;
  request.headers = headers;
  request.httpVersion = '1.1';
  return request;
}

describe('Node HTTP → API Gateway v2 event', () => {
  it('carries method, raw path, query, lower-cased headers and a text body', () => {
    const body = Buffer.from('{"status":"SUCCESSFUL"}');
    const event = toApiGatewayEvent(
      incoming('PUT', '/v1/momo/demo/requesttopay/abc?x=1&x=2', {
        'content-type': 'application/json',
        host: 'localhost:3000',
      }),
      body,
      { trustForwardedFor: true },
    );
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: '$default',
      rawPath: '/v1/momo/demo/requesttopay/abc',
      rawQueryString: 'x=1&x=2',
      queryStringParameters: { x: '1,2' },
      body: '{"status":"SUCCESSFUL"}',
      isBase64Encoded: false,
      requestContext: {
        http: { method: 'PUT', path: '/v1/momo/demo/requesttopay/abc', sourceIp: '10.1.2.3' },
        stage: '$default',
      },
    });
  });

  it('base64-encodes a body that is not valid UTF-8, like API Gateway', () => {
    const body = Buffer.from([0xff, 0xfe, 0x00, 0x41]);
    const event = toApiGatewayEvent(
      incoming('POST', '/x', { 'content-type': 'application/octet-stream' }),
      body,
      { trustForwardedFor: true },
    );
    expect(event.isBase64Encoded).toBe(true);
    expect(Buffer.from(event.body!, 'base64')).toEqual(body);
  });

  it('takes the last X-Forwarded-For entry (the local proxy’s) as source IP when trusted, the socket address otherwise', () => {
    // Prepare: a caller at 10.0.0.1 that wrote Safaricom's address itself, through a proxy on this machine
    // that appended its own; a test's single entry, from this machine too.
    const forged = incoming('POST', '/x', { 'x-forwarded-for': '196.201.214.200, 10.0.0.1' }, '127.0.0.1');
    const direct = incoming('POST', '/x', { 'x-forwarded-for': '196.201.214.200' }, '::1');

    // Act
    const trusted = sourceIpOf(forged, { trustForwardedFor: true });
    const untrusted = sourceIpOf(forged, { trustForwardedFor: false });
    const single = sourceIpOf(direct, { trustForwardedFor: true });

    // Assess
    expect(trusted).toBe('10.0.0.1');
    expect(untrusted).toBe('127.0.0.1');
    expect(single).toBe('196.201.214.200');
  });

  it('believes no X-Forwarded-For from a caller that reached the server over the network (HOST=0.0.0.0)', () => {
    // Prepare: a remote caller at 10.1.2.3 naming Safaricom's address as the last entry itself.
    const remote = incoming('POST', '/x', { 'x-forwarded-for': '196.201.214.200' }, '::ffff:10.1.2.3');

    // Act
    const ip = sourceIpOf(remote, { trustForwardedFor: true });

    // Assess: its own address, which no allow-list admits.
    expect(ip).toBe('10.1.2.3');
  });
});

describe('the local server routes the request target as API Gateway passes it', () => {
  it('keeps percent-encoded dots as a segment instead of resolving them as ..', () => {
    // Prepare: `%2e%2e` that a WHATWG URL parser would resolve, taking the path one segment up.
    const request = incoming('POST', '/v1/transactions/airtel/demo/%2e%2e/check?x=%2e%2e', {});

    // Act
    const event = toApiGatewayEvent(request, Buffer.alloc(0), { trustForwardedFor: false });
    const target = requestUrl('/v1/transactions/airtel/demo/%2E./%2e/resolve');

    // Assess
    expect(event.rawPath).toBe('/v1/transactions/airtel/demo/%2e%2e/check');
    expect(event.requestContext.http.path).toBe('/v1/transactions/airtel/demo/%2e%2e/check');
    expect(event.rawQueryString).toBe('x=%2e%2e');
    expect(event.queryStringParameters).toEqual({ x: '..' });
    expect(target.pathname).toBe('/v1/transactions/airtel/demo/%2E./%2e/resolve');
  });

  it('still resolves literal dot segments and keeps `//x` a path', () => {
    // Act
    const literal = requestUrl('/v1/a/../b/./c');
    const trailing = requestUrl('/v1/a/..');
    const doubled = requestUrl('//x?y=1');

    // Assess
    expect(literal.pathname).toBe('/v1/b/c');
    expect(trailing.pathname).toBe('/v1/');
    expect(doubled).toMatchObject({ pathname: '//x', rawQuery: 'y=1' });
  });
});

describe('X-Forwarded-For under the local server', () => {
  it('does not take a value that is not an IP address as the source IP', () => {
    // Prepare: attacker text where the proxy's address would be.
    const formula = incoming('POST', '/x', { 'x-forwarded-for': '=1+1' }, '127.0.0.1');
    const script = incoming('POST', '/x', { 'x-forwarded-for': '196.201.214.200, <script>' }, '127.0.0.1');
    const bracketed = incoming('POST', '/x', { 'x-forwarded-for': '[2001:db8::7]' }, '127.0.0.1');

    // Act
    const formulaIp = sourceIpOf(formula, { trustForwardedFor: true });
    const scriptIp = sourceIpOf(script, { trustForwardedFor: true });
    const bracketedIp = sourceIpOf(bracketed, { trustForwardedFor: true });

    // Assess: the socket's address, never the text sent.
    expect(formulaIp).toBe('127.0.0.1');
    expect(scriptIp).toBe('127.0.0.1');
    expect(bracketedIp).toBe('2001:db8::7');
  });
});
