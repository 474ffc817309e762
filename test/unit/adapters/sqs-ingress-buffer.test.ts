import { SendMessageCommand, SQSClient, SQSServiceException } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { createHash } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import {
  createSqsBufferClient,
  SQS_MAX_MESSAGE_BYTES,
  SqsIngressBuffer,
} from '../../../shared/adapters/sqs/sqs-ingress-buffer';
import {
  BufferedMessageTooLargeError,
  decodeBufferedMessage,
  IngressBufferUnavailableError,
  SEAL_ATTRIBUTE,
  sealMatches,
} from '../../../shared/app/buffer/ingress-buffer';
import type { BufferedCallback } from '../../../shared/app/ports';

const sqs = mockClient(SQSClient);
// The mock patches the client class every later file of this worker shares: undo it.
afterAll(() => sqs.restore());
afterEach(() => sqs.reset());

const QUEUE_URL = 'https://sqs.eu-west-1.amazonaws.com/123456789012/relay-ingress-buffer';

function message(body = '{"status":"SUCCESSFUL"}'): BufferedCallback {
  return {
    version: 1,
    kind: 'callback',
    requestId: 'req-1',
    provider: 'momo',
    account: 'demo',
    route: 'callback',
    params: { kind: 'requesttopay', referenceId: '6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f' },
    method: 'PUT',
    path: '/v1/momo/demo/{secret}/requesttopay/6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f',
    headers: { 'content-type': 'application/json' },
    sourceIp: '198.51.100.7',
    receivedAt: '2026-11-21T10:00:00.000Z',
    body,
    verification: { pathSecret: 'verified' },
    authenticated: false,
    confirmUnsignedSuccess: true,
    rawBodySha256: 'a'.repeat(64),
    bufferedAt: '2026-11-21T10:00:01.200Z',
    why: 'the store did not answer within 1200 ms',
  };
}

function serviceError(name: string, status: number): SQSServiceException {
  return new SQSServiceException({
    name,
    $fault: status >= 500 ? 'server' : 'client',
    $metadata: { httpStatusCode: status },
    message: `${name} happened`,
  });
}

const buffer = (options: { timeoutMs?: number } = {}) =>
  new SqsIngressBuffer(new SQSClient({ region: 'eu-west-1' }), { queueUrl: QUEUE_URL, ...options });

describe('SqsIngressBuffer', () => {
  it('sends the message as JSON to the queue and returns the SQS message id', async () => {
    // Prepare
    sqs.on(SendMessageCommand).resolves({ MessageId: 'sqs-1' });

    // Act
    const accepted = await buffer().accept(message());

    // Assess
    expect(accepted).toEqual({ id: 'sqs-1' });
    const input = sqs.commandCalls(SendMessageCommand)[0]!.args[0].input;
    expect(input.QueueUrl).toBe(QUEUE_URL);
    expect(decodeBufferedMessage(input.MessageBody)).toEqual(message());
  });

  it('seals every message with the buffer key, so the consumer can tell it from a made-up one', async () => {
    // Prepare
    sqs.on(SendMessageCommand).resolves({ MessageId: 'sqs-1' });
    const key = Buffer.from('k'.repeat(48));
    const sealing = new SqsIngressBuffer(new SQSClient({ region: 'eu-west-1' }), {
      queueUrl: QUEUE_URL,
      sealKey: key,
    });

    // Act
    await sealing.accept(message());

    // Assess
    const input = sqs.commandCalls(SendMessageCommand)[0]!.args[0].input;
    const seal = input.MessageAttributes?.[SEAL_ATTRIBUTE]?.StringValue;
    expect(sealMatches(input.MessageBody!, seal, key)).toBe(true);
    expect(
      sealMatches(input.MessageBody!.replace('"authenticated":false', '"authenticated":true'), seal, key),
    ).toBe(false);
    expect(sealMatches(input.MessageBody!, seal, Buffer.from('x'.repeat(48)))).toBe(false);
    expect(sealMatches(input.MessageBody!, undefined, key)).toBe(false);
    expect(sealMatches(input.MessageBody!, 'not-hex', key)).toBe(false);
  });

  it('passes an abort signal to every call, bounded by the caller signal', async () => {
    // Prepare
    sqs.on(SendMessageCommand).resolves({ MessageId: 'sqs-1' });
    const caller = new AbortController();

    // Act
    await buffer().accept(message(), { signal: caller.signal });
    caller.abort();

    // Assess
    const options = (sqs.commandCalls(SendMessageCommand)[0]!.args as unknown[])[1] as {
      abortSignal?: AbortSignal;
    };
    expect(options.abortSignal).toBeDefined();
    expect(options.abortSignal!.aborted).toBe(true);
  });

  it('turns throttling into IngressBufferUnavailableError, naming the error', async () => {
    // Prepare
    sqs.on(SendMessageCommand).rejects(serviceError('ThrottlingException', 400));

    // Act / Assess
    const error = await buffer()
      .accept(message())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IngressBufferUnavailableError);
    expect((error as Error).message).toContain('ThrottlingException');
    expect((error as Error).cause).toBeInstanceOf(SQSServiceException);
  });

  it('turns a 5xx into IngressBufferUnavailableError', async () => {
    // Prepare
    sqs.on(SendMessageCommand).rejects(serviceError('InternalError', 500));

    // Act / Assess
    await expect(buffer().accept(message())).rejects.toThrow(/SQS SendMessage failed: InternalError/);
  });

  it('gives up when SQS does not answer within its timeout', async () => {
    // Prepare
    // The mock ignores the signal; the real client's handler aborts the request. Emulate that:
    const client = new SQSClient({ region: 'eu-west-1' });
    client.send = ((_: unknown, options: { abortSignal: AbortSignal }) =>
      new Promise((_, reject) =>
        options.abortSignal.addEventListener('abort', () =>
          reject(Object.assign(new Error('Request aborted'), { name: 'AbortError' })),
        ),
      )) as never;
    const slow = new SqsIngressBuffer(client, { queueUrl: QUEUE_URL, timeoutMs: 50 });

    // Act / Assess: cut by the buffer's own timeout (the mock never answers otherwise).
    await expect(slow.accept(message())).rejects.toThrow(/aborted \(out of time\)/);
  });

  it('gives up when the caller aborts (the ack budget ran out)', async () => {
    // Prepare
    const client = new SQSClient({ region: 'eu-west-1' });
    client.send = ((_: unknown, options: { abortSignal: AbortSignal }) =>
      new Promise((_, reject) =>
        options.abortSignal.addEventListener('abort', () => reject(new Error('Request aborted'))),
      )) as never;
    const caller = new AbortController();
    setTimeout(() => caller.abort(), 20);

    // Act / Assess
    await expect(
      new SqsIngressBuffer(client, { queueUrl: QUEUE_URL }).accept(message(), { signal: caller.signal }),
    ).rejects.toBeInstanceOf(IngressBufferUnavailableError);
  });

  it('refuses a message over the SQS limit whole, without calling SQS', async () => {
    // Prepare
    const big = message('x'.repeat(SQS_MAX_MESSAGE_BYTES));

    // Act / Assess
    const error = await buffer()
      .accept(big)
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BufferedMessageTooLargeError);
    expect(error).toBeInstanceOf(IngressBufferUnavailableError);
    expect((error as Error).message).toMatch(/bytes; the queue takes at most 262144/);
    expect(sqs.commandCalls(SendMessageCommand)).toHaveLength(0);
  });

  it('escapes the characters SQS refuses, and they read back the same', async () => {
    // Prepare
    sqs.on(SendMessageCommand).resolves({ MessageId: 'sqs-1' });
    const odd = message('{"note":"\uffff\ufffe"}');

    // Act
    await buffer().accept(odd);

    // Assess
    const sent = sqs.commandCalls(SendMessageCommand)[0]!.args[0].input.MessageBody!;
    expect(sent).not.toMatch(/[\ufffe\uffff]/);
    expect(decodeBufferedMessage(sent).body).toBe(odd.body);
  });

  it('fails when SQS answers without a message id', async () => {
    // Prepare
    sqs.on(SendMessageCommand).resolves({});

    // Act / Assess
    await expect(buffer().accept(message())).rejects.toBeInstanceOf(IngressBufferUnavailableError);
  });
});

describe('createSqsBufferClient', () => {
  it('retries with the standard strategy and bounds each attempt', async () => {
    // Act
    const client = createSqsBufferClient({ region: 'eu-west-1' });

    // Assess
    expect(await client.config.maxAttempts()).toBe(3);
    const mode = client.config.retryMode as unknown;
    expect(typeof mode === 'function' ? await mode() : mode).toBe('standard');
    client.destroy();
  });
});

describe('SqsIngressBuffer with the real SDK client (a local endpoint)', () => {
  let server: Server;
  let endpoint: string;
  const answers: ((res: ServerResponse) => void)[] = [];
  let requests = 0;
  let lastBody = '';

  // aws-sdk-client-mock replaces send() on every SQSClient (again after each reset): this block needs the real one.
  beforeEach(() => sqs.restore());
  beforeAll(async () => {
    server = createServer((req, res) => {
      requests++;
      let text = '';
      req.on('data', (chunk) => (text += chunk));
      req.on('end', () => {
        lastBody = text;
        (answers.shift() ?? ok)(res);
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  const json = (status: number, body: unknown) => (res: ServerResponse) => {
    res.writeHead(status, { 'content-type': 'application/x-amz-json-1.0' });
    res.end(JSON.stringify(body));
  };
  // The SDK checks the body's MD5 as SQS computes it.
  const ok = (res: ServerResponse) =>
    json(200, {
      MessageId: 'real-1',
      MD5OfMessageBody: createHash('md5')
        .update((JSON.parse(lastBody) as { MessageBody: string }).MessageBody)
        .digest('hex'),
    })(res);

  it('retries a 5xx and a throttled answer inside one accept, then succeeds', async () => {
    // Prepare
    requests = 0;
    answers.push(
      json(500, { __type: 'com.amazonaws.sqs#InternalError', message: 'boom' }),
      json(400, { __type: 'com.amazonaws.sqs#ThrottlingException', message: 'slow down' }),
    );
    const client = createSqsBufferClient({ region: 'eu-west-1', endpoint });
    client.config.credentials = async () => ({ accessKeyId: 'k', secretAccessKey: 's' });

    // Act
    const accepted = await new SqsIngressBuffer(client, {
      queueUrl: `${endpoint}/1/q`,
      timeoutMs: 5_000,
    }).accept(message());

    // Assess
    expect(accepted).toEqual({ id: 'real-1' });
    expect(requests).toBe(3);
    client.destroy();
  });

  it('gives up after the three attempts of the SDK, with IngressBufferUnavailableError', async () => {
    // Prepare
    requests = 0;
    for (let i = 0; i < 5; i++) answers.push(json(500, { __type: 'InternalError', message: 'down' }));
    const client = createSqsBufferClient({ region: 'eu-west-1', endpoint });
    client.config.credentials = async () => ({ accessKeyId: 'k', secretAccessKey: 's' });

    // Act
    const error = await new SqsIngressBuffer(client, { queueUrl: `${endpoint}/1/q`, timeoutMs: 5_000 })
      .accept(message())
      .catch((e: unknown) => e);

    // Assess
    expect(error).toBeInstanceOf(IngressBufferUnavailableError);
    expect((error as Error).message).toContain('InternalError');
    expect(requests).toBe(3);
    answers.length = 0;
    client.destroy();
  });
});
