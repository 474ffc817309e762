import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createHash } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as slimSecrets from '../../../infra/lambda-shims/secrets-manager-client';
import * as slimSqs from '../../../infra/lambda-shims/sqs-send-message';

/*
 * The Lambda bundles send SQS SendMessage (callback function) and Secrets Manager GetSecretValue (every
 * function) through slim clients rebuilt from the SDK's parts (infra/lambda-shims/slim-aws-client.ts),
 * without the error classes and schemas of the services' other operations. Here both clients, the
 * package's and the slim one, send the same command to the same local HTTP endpoint: the requests must be
 * the same on the wire (target, body, signed headers, signature scope, retries), and the answers and
 * errors the same to the adapters (shared/adapters/sqs/sqs-ingress-buffer.ts, secrets/secrets-manager.ts).
 */

interface Recorded {
  headers: IncomingHttpHeaders;
  body: string;
}

let server: Server;
let endpoint: string;
const recorded: Recorded[] = [];
/** Answers by X-Amz-Target; each call shifts one answer (the last one repeats). */
const answers = new Map<string, Array<{ status: number; body: unknown; headers?: Record<string, string> }>>();

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      recorded.push({ headers: req.headers, body });
      const queue = answers.get(String(req.headers['x-amz-target'])) ?? [];
      const answer = queue.length > 1 ? queue.shift()! : queue[0]!;
      res.writeHead(answer.status, { 'content-type': 'application/x-amz-json-1.0', ...answer.headers });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

const clientConfig = () => ({
  region: 'eu-west-1',
  endpoint,
  credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret', sessionToken: 'token' },
  maxAttempts: 3,
});

/** What must match between the two clients' requests (the date, signature and invocation id vary per call). */
function wire(request: Recorded) {
  const { headers } = request;
  const authorization = String(headers.authorization);
  return {
    target: headers['x-amz-target'],
    contentType: headers['content-type'],
    host: headers.host,
    token: headers['x-amz-security-token'],
    scope: authorization.match(/Credential=AKIDEXAMPLE\/\d{8}\/([^,]+)/)?.[1],
    signedHeaders: authorization.match(/SignedHeaders=([^,]+)/)?.[1],
    // The package's CommonJS build (what tests load) carries its own version string, one release behind
    // its package.json at times; the bundles load the ESM build, which reads package.json, as the slim does.
    userAgent: String(headers['user-agent']).split(' ')[1],
    attempts: headers['amz-sdk-request'],
    body: JSON.parse(request.body),
  };
}

/** Each client sends with the endpoint's answers set afresh by `arrange`. */
async function sendBoth<T>(arrange: () => void, send: (slim: boolean) => Promise<T>) {
  recorded.length = 0;
  arrange();
  const real = await send(false).then(
    (value) => ({ value }),
    (error: Error) => ({ error: { name: error.name, message: error.message } }),
  );
  const realRequests = recorded.splice(0).map(wire);
  arrange();
  const slim = await send(true).then(
    (value) => ({ value }),
    (error: Error) => ({ error: { name: error.name, message: error.message } }),
  );
  const slimRequests = recorded.splice(0).map(wire);
  return { real, slim, realRequests, slimRequests };
}

describe('slim SQS client (callback function)', () => {
  const sendMessage = (slim: boolean) => {
    const Client = slim ? slimSqs.SQSClient : SQSClient;
    const Command = slim ? slimSqs.SendMessageCommand : SendMessageCommand;
    const client = new Client(clientConfig());
    return client
      .send(
        new Command({
          QueueUrl: `${endpoint}/123456789012/relay-ingress-buffer`,
          MessageBody: '{"kind":"callback","body":"é"}',
          MessageAttributes: { 'relay-seal': { DataType: 'String', StringValue: 'a'.repeat(64) } },
        }),
      )
      .then((out: { MessageId?: string; MD5OfMessageBody?: string }) => ({
        MessageId: out.MessageId,
        MD5OfMessageBody: out.MD5OfMessageBody,
      }));
  };

  it('sends SendMessage as the package client does and reads the same message id', async () => {
    // Prepare
    const md5 = createHash('md5').update('{"kind":"callback","body":"é"}').digest('hex');
    const arrange = () =>
      answers.set('AmazonSQS.SendMessage', [
        { status: 200, body: { MessageId: 'm-1', MD5OfMessageBody: md5 } },
      ]);

    // Act
    const { real, slim, realRequests, slimRequests } = await sendBoth(arrange, sendMessage);

    // Assess
    expect(real).toEqual({ value: { MessageId: 'm-1', MD5OfMessageBody: md5 } });
    expect(slim).toEqual(real);
    expect(realRequests).toHaveLength(1);
    expect(slimRequests).toEqual(realRequests);
    expect(slimRequests[0]!.scope).toBe('eu-west-1/sqs/aws4_request');
  });

  it('retries a throttled send and fails a bad checksum like the package client', async () => {
    // Prepare: throttled once, then an answer whose body checksum is wrong.
    const arrange = () =>
      answers.set('AmazonSQS.SendMessage', [
        {
          status: 400,
          body: { __type: 'com.amazonaws.sqs#RequestThrottled', message: 'Rate exceeded' },
          headers: { 'x-amzn-query-error': 'RequestThrottled;Sender' },
        },
        { status: 200, body: { MessageId: 'm-2', MD5OfMessageBody: '0'.repeat(32) } },
      ]);

    // Act
    const first = await sendBoth(arrange, sendMessage);

    // Assess
    expect(first.real).toEqual({ error: { name: 'Error', message: 'InvalidChecksumError' } });
    expect(first.slim).toEqual(first.real);
    expect(first.slimRequests).toEqual(first.realRequests);
  });

  it('names a service error as the package client does', async () => {
    // Prepare
    const arrange = () =>
      answers.set('AmazonSQS.SendMessage', [
        {
          status: 400,
          body: {
            __type: 'com.amazonaws.sqs#QueueDoesNotExist',
            message: 'The specified queue does not exist.',
          },
          headers: { 'x-amzn-query-error': 'AWS.SimpleQueueService.NonExistentQueue;Sender' },
        },
      ]);

    // Act
    const { real, slim } = await sendBoth(arrange, sendMessage);

    // Assess
    expect(real).toEqual({
      error: { name: 'QueueDoesNotExist', message: 'The specified queue does not exist.' },
    });
    expect(slim).toEqual(real);
  });
});

describe('slim Secrets Manager client (every function)', () => {
  const getSecret = (slim: boolean) => {
    const Client = slim ? slimSecrets.SecretsManagerClient : SecretsManagerClient;
    const Command = slim ? slimSecrets.GetSecretValueCommand : GetSecretValueCommand;
    return new Client(clientConfig())
      .send(new Command({ SecretId: 'relay/momo/demo' }))
      .then((out: Record<string, unknown>) => out.SecretString);
  };

  it('sends GetSecretValue as the package client does and reads the same secret', async () => {
    // Prepare
    const arrange = () =>
      answers.set('secretsmanager.GetSecretValue', [
        {
          status: 200,
          body: {
            ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:relay/momo/demo-AbCdEf',
            Name: 'relay/momo/demo',
            SecretString: '{"pathSecret":"0123456789abcdef"}',
            VersionId: 'v1',
            VersionStages: ['AWSCURRENT'],
            CreatedDate: 1_764_400_000.123,
          },
        },
      ]);

    // Act
    const { real, slim, realRequests, slimRequests } = await sendBoth(arrange, getSecret);

    // Assess
    expect(real).toEqual({ value: '{"pathSecret":"0123456789abcdef"}' });
    expect(slim).toEqual(real);
    expect(slimRequests).toEqual(realRequests);
    expect(slimRequests[0]!.scope).toBe('eu-west-1/secretsmanager/aws4_request');
  });

  it('names a missing secret as the package client does', async () => {
    // Prepare
    const arrange = () =>
      answers.set('secretsmanager.GetSecretValue', [
        {
          status: 400,
          body: {
            __type: 'ResourceNotFoundException',
            message: "Secrets Manager can't find the specified secret.",
          },
        },
      ]);

    // Act
    const { real, slim, realRequests, slimRequests } = await sendBoth(arrange, getSecret);

    // Assess
    expect(real).toEqual({
      error: {
        name: 'ResourceNotFoundException',
        message: "Secrets Manager can't find the specified secret.",
      },
    });
    expect(slim).toEqual(real);
    expect(slimRequests).toEqual(realRequests);
  });
});
