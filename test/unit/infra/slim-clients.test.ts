import {
  BatchGetItemCommand,
  ConditionalCheckFailedException,
  DynamoDBClient,
  GetItemCommand,
  PutItemCommand,
  TransactionCanceledException,
  TransactWriteItemsCommand,
} from '@aws-sdk/client-dynamodb';
import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import * as sqs from '@aws-sdk/client-sqs';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as slimDynamo from '../../../infra/lambda-shims/dynamodb-client';
import * as slimSecrets from '../../../infra/lambda-shims/secrets-manager-client';
import * as slimStore from '../../../infra/lambda-shims/dynamodb-store-client';
import * as slimSqs from '../../../infra/lambda-shims/sqs-send-message';
import * as slimSqsClient from '../../../infra/lambda-shims/sqs-client';
import { driveTimers, useDrivenTimers, watched } from '../../helpers/driven-timers';

/*
 * The Lambda bundles send SQS SendMessage and DynamoDB's item commands (callback function) and Secrets
 * Manager GetSecretValue (every function), and the whole store's DynamoDB commands (the other functions)
 * through slim clients rebuilt from the SDK's parts
 * (infra/lambda-shims/slim-aws-client.ts), without the error classes and schemas of the services' other
 * operations. Here both clients, the package's and the slim one, send the same command to the same local
 * HTTP endpoint: the requests must be the same on the wire (target, body, signed headers, signature scope,
 * retries), and the answers and errors the same to the adapters (shared/adapters/sqs/sqs-ingress-buffer.ts,
 * secrets/secrets-manager.ts, dynamodb/relay-store.ts). The slim clients import the packages' ESM files
 * by path and copy their schemas: the last part fails when an SDK upgrade moves or renames such a file or
 * export, changes a copied schema, or changes what a generated client's constructor sets up.
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

useDrivenTimers();

/**
 * Settles a send whose retry backoff (a `setTimeout` of up to a second after a throttled answer) runs on
 * the driven clock: each timer the client sets is run as soon as it is set; the HTTP exchanges stay real
 * (the sockets get a turn while no timer is waiting).
 */
async function settled<T>(sending: Promise<T>): Promise<T> {
  const { settled: done } = watched(sending);
  while (!done()) {
    if (vi.getTimerCount() > 0) await vi.advanceTimersToNextTimerAsync();
    else await new Promise((resolve) => setImmediate(resolve));
  }
  return sending;
}

/** Each client sends with the endpoint's answers set afresh by `arrange`. */
async function sendBoth<T>(arrange: () => void, send: (slim: boolean) => Promise<T>) {
  driveTimers();
  recorded.length = 0;
  arrange();
  const real = await settled(send(false)).then(
    (value) => ({ value }),
    (error: Error) => ({ error: { name: error.name, message: error.message } }),
  );
  const realRequests = recorded.splice(0).map(wire);
  arrange();
  const slim = await settled(send(true)).then(
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

describe('slim SQS client (buffer consumer, management API, delivery function)', () => {
  const queueUrl = () => `${endpoint}/123456789012/relay-ingress-buffer`;
  const body = '{"kind":"callback","body":"é"}';
  const md5 = createHash('md5').update(body).digest('hex');
  /** Each command these functions send (shared/adapters/sqs/*), as they send it, and an answer SQS gives. */
  const commands: Array<[name: string, input: () => Record<string, unknown>, answer: unknown]> = [
    [
      'ReceiveMessage',
      () => ({
        QueueUrl: queueUrl(),
        MaxNumberOfMessages: 10,
        WaitTimeSeconds: 1,
        MessageSystemAttributeNames: ['ApproximateReceiveCount'],
        MessageAttributeNames: ['relay-seal'],
      }),
      {
        Messages: [
          {
            MessageId: 'm-1',
            ReceiptHandle: 'rh-1',
            MD5OfBody: md5,
            Body: body,
            Attributes: { ApproximateReceiveCount: '2' },
            MessageAttributes: { 'relay-seal': { DataType: 'String', StringValue: 'a'.repeat(64) } },
          },
        ],
      },
    ],
    [
      'DeleteMessageBatch',
      () => ({
        QueueUrl: queueUrl(),
        Entries: [
          { Id: '0', ReceiptHandle: 'rh-1' },
          { Id: '1', ReceiptHandle: 'rh-2' },
        ],
      }),
      {
        Successful: [{ Id: '0' }],
        Failed: [{ Id: '1', SenderFault: true, Code: 'ReceiptHandleIsInvalid', Message: 'gone' }],
      },
    ],
    [
      'ChangeMessageVisibilityBatch',
      () => ({ QueueUrl: queueUrl(), Entries: [{ Id: '0', ReceiptHandle: 'rh-1', VisibilityTimeout: 30 }] }),
      { Successful: [], Failed: [{ Id: '0', SenderFault: false, Code: 'InternalError' }] },
    ],
    [
      'GetQueueAttributes',
      () => ({ QueueUrl: queueUrl(), AttributeNames: ['ApproximateNumberOfMessages'] }),
      { Attributes: { ApproximateNumberOfMessages: '7' } },
    ],
    [
      'ChangeMessageVisibility',
      () => ({ QueueUrl: queueUrl(), ReceiptHandle: 'rh-1', VisibilityTimeout: 120 }),
      {},
    ],
    [
      'ListDeadLetterSourceQueues',
      () => ({ QueueUrl: queueUrl(), MaxResults: 1000, NextToken: 'page-2' }),
      { queueUrls: [`${endpoint}/123456789012/relay-delivery-a`], NextToken: 'page-3' },
    ],
    ['ListQueueTags', () => ({ QueueUrl: queueUrl() }), { Tags: { 'relay-destination': 'partner-a' } }],
    ['GetQueueUrl', () => ({ QueueName: 'partner-a' }), { QueueUrl: `${endpoint}/123456789012/partner-a` }],
    [
      'SendMessage',
      () => ({
        QueueUrl: queueUrl(),
        MessageBody: body,
        DelaySeconds: 5,
        MessageAttributes: { 'relay-event': { DataType: 'String', StringValue: 'TransactionSucceeded' } },
        MessageGroupId: 'g-1',
        MessageDeduplicationId: 'd-1',
      }),
      { MessageId: 'm-2', MD5OfMessageBody: md5, SequenceNumber: '1' },
    ],
  ];
  const send = (name: string, input: Record<string, unknown>) => (slim: boolean) => {
    const Client = slim ? slimSqsClient.SQSClient : SQSClient;
    const Command = (
      (slim ? slimSqsClient : sqs) as unknown as Record<string, new (input: unknown) => never>
    )[`${name}Command`]!;
    return new Client(clientConfig())
      .send(new Command(input))
      .then(({ $metadata, ...out }: { $metadata: unknown }) => ({ out, $metadata }));
  };

  it.each(commands)(
    'sends %s as the package client does and reads the same answer',
    async (name, input, answer) => {
      // Prepare
      const arrange = () => answers.set(`AmazonSQS.${name}`, [{ status: 200, body: answer }]);

      // Act
      const { real, slim, realRequests, slimRequests } = await sendBoth(arrange, send(name, input()));

      // Assess
      expect(real).toHaveProperty('value.out');
      expect(slim).toEqual(real);
      expect(realRequests).toHaveLength(1);
      expect(slimRequests).toEqual(realRequests);
      expect(slimRequests[0]!.target).toBe(`AmazonSQS.${name}`);
    },
  );

  it('exports every SQS command the adapters import', () => {
    // Prepare: what shared/ imports from the package by name (types aside).
    const imported = new Set<string>();
    const sources = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
        entry.isDirectory()
          ? sources(join(dir, entry.name))
          : entry.name.endsWith('.ts')
            ? [join(dir, entry.name)]
            : [],
      );
    for (const file of sources(join(ROOT, 'shared')))
      for (const m of readFileSync(file, 'utf8').matchAll(
        /import\s*\{([^}]*)\}\s*from\s*'@aws-sdk\/client-sqs'/g,
      ))
        for (const part of m[1]!.split(','))
          if (part.trim() && !part.trim().startsWith('type ')) imported.add(part.trim());

    // Act
    const missing = [...imported].filter((name) => !(name in slimSqsClient));

    // Assess
    expect(imported.size).toBeGreaterThan(8);
    expect(missing).toEqual([]);
  });

  it('names a missing queue and a refused role as the package client does (the sqs destination reads the name)', async () => {
    for (const [code, queryCode] of [
      ['QueueDoesNotExist', 'AWS.SimpleQueueService.NonExistentQueue'],
      ['AccessDenied', 'AccessDenied'],
    ]) {
      // Prepare
      const arrange = () =>
        answers.set('AmazonSQS.GetQueueUrl', [
          {
            status: 400,
            body: { __type: `com.amazonaws.sqs#${code}`, message: 'refused' },
            headers: { 'x-amzn-query-error': `${queryCode};Sender` },
          },
        ]);

      // Act
      const { real, slim } = await sendBoth(arrange, send('GetQueueUrl', { QueueName: 'partner-a' }));

      // Assess
      expect(real, code).toEqual({ error: { name: code, message: 'refused' } });
      expect(slim, code).toEqual(real);
    }
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

describe('slim DynamoDB client (callback function)', () => {
  const key = { pk: { S: 'TX#momo#demo#r-1' }, sk: { S: 'TX' } };
  const getItem = (slim: boolean) => {
    const Client = slim ? slimDynamo.DynamoDBClient : DynamoDBClient;
    const Command = slim ? slimDynamo.GetItemCommand : GetItemCommand;
    return new Client(clientConfig())
      .send(new Command({ TableName: 'relay', Key: key, ConsistentRead: true }))
      .then((out: { Item?: unknown; ConsumedCapacity?: unknown }) => ({
        Item: out.Item,
        ConsumedCapacity: out.ConsumedCapacity,
      }));
  };
  const putItem = (slim: boolean) => {
    const Client = slim ? slimDynamo.DynamoDBClient : DynamoDBClient;
    const Command = slim ? slimDynamo.PutItemCommand : PutItemCommand;
    const Conditional = slim ? slimDynamo.ConditionalCheckFailedException : ConditionalCheckFailedException;
    return new Client(clientConfig())
      .send(
        new Command({
          TableName: 'relay',
          Item: { ...key, amount: { N: '1500' }, tags: { SS: ['a', 'b'] }, body: { B: Buffer.from('é') } },
          ConditionExpression: 'attribute_not_exists(pk)',
          ReturnValuesOnConditionCheckFailure: 'ALL_OLD',
        }),
      )
      .then(
        () => ({ stored: true }),
        (error: Error & { Item?: unknown; $fault?: string }) => {
          // What the store reads of an error: its class (a condition that failed), name, item and fault.
          throw Object.assign(new Error(error.message), {
            name: `${error.name}${error instanceof Conditional ? ' (conditional)' : ''}`,
            message: JSON.stringify({ message: error.message, item: error.Item, fault: error.$fault }),
          });
        },
      );
  };

  it('reads an item as the package client does', async () => {
    // Prepare
    const arrange = () =>
      answers.set('DynamoDB_20120810.GetItem', [
        {
          status: 200,
          body: {
            Item: { ...key, amount: { N: '1500' }, parties: { L: [{ M: { msisdn: { S: '2567…89' } } }] } },
            ConsumedCapacity: { TableName: 'relay', CapacityUnits: 1 },
          },
        },
      ]);

    // Act
    const { real, slim, realRequests, slimRequests } = await sendBoth(arrange, getItem);

    // Assess
    expect(real).toEqual({
      value: {
        Item: { ...key, amount: { N: '1500' }, parties: { L: [{ M: { msisdn: { S: '2567…89' } } }] } },
        ConsumedCapacity: { TableName: 'relay', CapacityUnits: 1 },
      },
    });
    expect(slim).toEqual(real);
    expect(slimRequests).toEqual(realRequests);
    expect(slimRequests[0]!.scope).toBe('eu-west-1/dynamodb/aws4_request');
  });

  it('fails a write whose condition failed with the same error class, item and fault', async () => {
    // Prepare
    const arrange = () =>
      answers.set('DynamoDB_20120810.PutItem', [
        {
          status: 400,
          body: {
            __type: 'com.amazonaws.dynamodb.v20120810#ConditionalCheckFailedException',
            message: 'The conditional request failed',
            Item: { ...key, amount: { N: '900' } },
          },
        },
      ]);

    // Act
    const { real, slim, realRequests, slimRequests } = await sendBoth(arrange, putItem);

    // Assess
    expect(real).toEqual({
      error: {
        name: 'ConditionalCheckFailedException (conditional)',
        message: JSON.stringify({
          message: 'The conditional request failed',
          item: { ...key, amount: { N: '900' } },
          fault: 'client',
        }),
      },
    });
    expect(slim).toEqual(real);
    expect(slimRequests).toEqual(realRequests);
  });

  it('retries a throttled write and names an error it has no class for as the package client does', async () => {
    // Prepare: throttled once, then a validation error (no class in the slim client: named by its code).
    const arrange = () =>
      answers.set('DynamoDB_20120810.PutItem', [
        {
          status: 400,
          body: {
            __type: 'com.amazonaws.dynamodb.v20120810#ProvisionedThroughputExceededException',
            message: 'Rate of requests exceeds the allowed throughput.',
          },
        },
        {
          status: 400,
          body: {
            __type: 'com.amazon.coral.validate#ValidationException',
            message: 'Item size has exceeded the maximum allowed size',
          },
        },
      ]);

    // Act
    const { real, slim, realRequests, slimRequests } = await sendBoth(arrange, putItem);

    // Assess
    expect(real).toEqual({
      error: {
        name: 'ValidationException',
        message: JSON.stringify({
          message: 'Item size has exceeded the maximum allowed size',
          fault: 'client',
        }),
      },
    });
    expect(slim).toEqual(real);
    expect(realRequests.map((r) => r.attempts)).toEqual(['attempt=1; max=3', 'attempt=2; max=3']);
    expect(slimRequests).toEqual(realRequests);
  });
});

describe('slim DynamoDB store client (every function but the callback and the buffer consumer)', () => {
  const key = { pk: { S: 'STMT#daraja#demo#2026-11-30' }, sk: { S: 'ROW#QK1#c2b' } };
  /** The request's idempotency token is a fresh UUID per call: compared by its form. */
  const tokenless = (requests: ReturnType<typeof wire>[]) =>
    requests.map((request) => ({
      ...request,
      body: {
        ...request.body,
        ClientRequestToken: /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(
          request.body.ClientRequestToken,
        )
          ? 'a UUID v4'
          : request.body.ClientRequestToken,
      },
    }));
  const batchGet = (slim: boolean) => {
    const Client = slim ? slimStore.DynamoDBClient : DynamoDBClient;
    const Command = slim ? slimStore.BatchGetItemCommand : BatchGetItemCommand;
    return new Client(clientConfig()).send(
      new Command({
        RequestItems: { relay: { Keys: [key, { ...key, sk: { S: 'ROW#QK2#c2b' } }], ConsistentRead: true } },
        ReturnConsumedCapacity: 'TOTAL',
      }),
    ) as Promise<Record<string, unknown>>;
  };
  const transactWrite = (slim: boolean) => {
    const Client = slim ? slimStore.DynamoDBClient : DynamoDBClient;
    const Command = slim ? slimStore.TransactWriteItemsCommand : TransactWriteItemsCommand;
    const Canceled = slim ? slimStore.TransactionCanceledException : TransactionCanceledException;
    return new Client(clientConfig())
      .send(
        new Command({
          TransactItems: [
            { Delete: { TableName: 'relay', Key: key, ConditionExpression: 'attribute_exists(pk)' } },
            {
              Put: {
                TableName: 'relay',
                Item: { ...key, sk: { S: 'RETIRED#2026-11-30T10:00:00Z#b-1' }, amount: { N: '1500' } },
                ConditionExpression: 'attribute_not_exists(pk)',
              },
            },
          ],
        }),
      )
      .then(
        (out: Record<string, unknown>) => ({ ConsumedCapacity: out.ConsumedCapacity }),
        (error: Error & { CancellationReasons?: unknown; $fault?: string }) => {
          // What the statement store reads of an error: its class (a cancellation) and the reasons.
          throw Object.assign(new Error(error.message), {
            name: `${error.name}${error instanceof Canceled ? ' (canceled)' : ''}`,
            message: JSON.stringify({ reasons: error.CancellationReasons, fault: error.$fault }),
          });
        },
      );
  };

  it('reads a batch as the package client does, unprocessed keys included', async () => {
    // Prepare
    const answer = {
      Responses: { relay: [{ ...key, amount: { N: '1500' } }] },
      UnprocessedKeys: { relay: { Keys: [{ ...key, sk: { S: 'ROW#QK2#c2b' } }], ConsistentRead: true } },
      ConsumedCapacity: [{ TableName: 'relay', CapacityUnits: 1 }],
    };
    const arrange = () => answers.set('DynamoDB_20120810.BatchGetItem', [{ status: 200, body: answer }]);

    // Act
    const { real, slim, realRequests, slimRequests } = await sendBoth(arrange, batchGet);

    // Assess
    expect(real).toEqual({ value: expect.objectContaining(answer) });
    expect(slim).toEqual(real);
    expect(slimRequests).toEqual(realRequests);
    expect(slimRequests[0]!.scope).toBe('eu-west-1/dynamodb/aws4_request');
  });

  it('writes a transaction as the package client does, with a fresh idempotency token', async () => {
    // Prepare
    const arrange = () =>
      answers.set('DynamoDB_20120810.TransactWriteItems', [
        { status: 200, body: { ConsumedCapacity: [{ TableName: 'relay', CapacityUnits: 4 }] } },
      ]);

    // Act
    const { real, slim, realRequests, slimRequests } = await sendBoth(arrange, transactWrite);

    // Assess
    expect(real).toEqual({ value: { ConsumedCapacity: [{ TableName: 'relay', CapacityUnits: 4 }] } });
    expect(slim).toEqual(real);
    expect(tokenless(slimRequests)).toEqual(tokenless(realRequests));
    expect(tokenless(slimRequests)[0]!.body.ClientRequestToken).toBe('a UUID v4');
  });

  it('fails a canceled transaction with the same error class and cancellation reasons', async () => {
    // Prepare
    const arrange = () =>
      answers.set('DynamoDB_20120810.TransactWriteItems', [
        {
          status: 400,
          body: {
            __type: 'com.amazonaws.dynamodb.v20120810#TransactionCanceledException',
            Message: 'Transaction cancelled, please refer cancellation reasons for specific reasons',
            CancellationReasons: [
              { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' },
              { Code: 'None' },
            ],
          },
        },
      ]);

    // Act
    const { real, slim, realRequests, slimRequests } = await sendBoth(arrange, transactWrite);

    // Assess
    expect(real).toEqual({
      error: {
        name: 'TransactionCanceledException (canceled)',
        message: JSON.stringify({
          reasons: [
            { Code: 'ConditionalCheckFailed', Message: 'The conditional request failed' },
            { Code: 'None' },
          ],
          fault: 'client',
        }),
      },
    });
    expect(slim).toEqual(real);
    expect(tokenless(slimRequests)).toEqual(tokenless(realRequests));
  });
});

/** The errors a client's own registries hold: each by its schema's id and the class it comes back as. */
const registeredErrors = (client: { config: Record<string, unknown> }) =>
  (
    client.config.protocolSettings as {
      errorTypeRegistries: Array<{ exceptions: Map<readonly unknown[], { name: string }> }>;
    }
  ).errorTypeRegistries.flatMap((registry) =>
    [...registry.exceptions].map(([schema, ctor]) => `${String(schema[2])}: ${ctor.name}`),
  );

describe('slim DynamoDB clients’ error classes', () => {
  const registered = registeredErrors;

  it('hold the classes the stores tell apart (or the SDK retries by class), each under its schema', () => {
    // Act: in a bundle these registries are all there is. In this process the SDK's static registry of
    // DynamoDB's namespace (the first registry made for it: the callback path's, and beside it whatever
    // the package loaded) fills in what a client lacks, so the answers above cannot show a class missing.
    const callbackPath = registered(new slimDynamo.DynamoDBClient(clientConfig()));
    const store = registered(new slimStore.DynamoDBClient(clientConfig()));

    // Assess
    const itemErrors = [
      'DynamoDBServiceException: DynamoDBServiceException',
      'ConditionalCheckFailedException: ConditionalCheckFailedException',
      'ReplicatedWriteConflictException: ReplicatedWriteConflictException',
    ];
    expect(callbackPath).toEqual(expect.arrayContaining(itemErrors));
    expect(store).toEqual([...itemErrors, 'TransactionCanceledException: TransactionCanceledException']);
  });
});

describe('slim SQS clients’ error classes', () => {
  it('hold the base exception alone: no code tells an SQS error class apart, the adapters read its name', () => {
    // Act: as for DynamoDB above, in a bundle these registries are all there is.
    const callback = registeredErrors(new slimSqs.SQSClient(clientConfig()));
    const others = registeredErrors(new slimSqsClient.SQSClient(clientConfig()));

    // Assess
    expect(callback).toEqual(['SQSServiceException: SQSServiceException']);
    expect(others).toEqual(callback);
  });
});

/** Files of the slim clients, and the packages' ESM files each imports by path. */
const ROOT = resolve(import.meta.dirname, '../../..');
const SHIMS = [
  'slim-aws-client',
  'sqs-send-message',
  'sqs-client',
  'secrets-manager-client',
  'dynamodb-client',
  'dynamodb-store-client',
].map((name) => join(ROOT, 'infra/lambda-shims', `${name}.ts`));

interface PathImport {
  shim: string;
  file: string;
  /** Names imported by name, or read from a namespace import (`ns.name`). */
  names: string[];
}

function pathImports(): PathImport[] {
  const found: PathImport[] = [];
  for (const shim of SHIMS) {
    const text = readFileSync(shim, 'utf8');
    for (const m of text.matchAll(
      /import\s+(\*\s+as\s+(\w+)|\{([^}]*)\})\s+from\s+'(\.\.\/\.\.\/node_modules\/[^']+\.js)'/g,
    )) {
      const names = m[2]
        ? [
            ...new Set(
              [...text.matchAll(new RegExp(`(?<![\\w.'"\`])${m[2]}\\.(\\w+)`, 'g'))].map((use) => use[1]!),
            ),
          ]
        : m[3]!
            .replace(/\/\/.*$/gm, '')
            .split(',')
            .map((part) => part.trim().split(/\s+as\s+/)[0]!)
            .filter(Boolean);
      found.push({ shim, file: resolve(dirname(shim), m[4]!), names });
    }
  }
  return found;
}

/**
 * A schema as data: each reference (`() => X$`, the generated files' lazy form) replaced by the name of
 * the schema it points to, each schema named once with its own value listed beside it.
 */
function schemaGraph(root: unknown): Record<string, unknown> {
  const named: Record<string, unknown> = {};
  const walk = (value: unknown): unknown => {
    if (typeof value === 'function') {
      const target = (value as () => unknown)();
      const name = Array.isArray(target) ? `${String(target[1])}#${String(target[2])}` : String(target);
      if (!(name in named)) {
        named[name] = null;
        named[name] = walk(target);
      }
      return { ref: name };
    }
    if (Array.isArray(value)) return value.map(walk);
    if (value && typeof value === 'object')
      return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
    return value;
  };
  named.root = walk(root);
  return named;
}

/** What a client sets up: its middleware, in order, and its resolved config (values that are data). */
function setUp(client: { middlewareStack: { identify(): string[] }; config: Record<string, unknown> }) {
  const config = Object.fromEntries(
    Object.entries(client.config)
      .filter(([name]) => !['protocol', 'protocolSettings'].includes(name))
      .map(([name, value]) => [
        name,
        typeof value === 'function'
          ? 'function'
          : value && typeof value === 'object'
            ? `object ${value.constructor?.name}`
            : value,
      ]),
  );
  return { middleware: client.middlewareStack.identify(), config };
}

describe('slim clients against the SDK they are built from', () => {
  it('import only ESM files and exports the installed SDK still has', async () => {
    // Prepare
    const imports = pathImports();
    expect(imports.length).toBeGreaterThan(15);

    // Act: each file loaded as the bundles load it, each name read.
    const missing: string[] = [];
    for (const { shim, file, names } of imports) {
      const where = `${shim.slice(ROOT.length + 1)}: ${file.slice(file.indexOf('node_modules/') + 13)}`;
      if (!existsSync(file)) {
        missing.push(`${where} (no such file)`);
        continue;
      }
      const module = (await import(pathToFileURL(file).href)) as Record<string, unknown>;
      for (const name of names) if (module[name] === undefined) missing.push(`${where} has no ${name}`);
    }

    // Assess
    expect(missing).toEqual([]);
  });

  it('copy the schemas the packages hold, unchanged', async () => {
    // Prepare
    const copies = [
      ['client-sqs', (await import('../../../infra/lambda-shims/sqs-send-message')).COPIED_SCHEMAS],
      ['client-sqs', slimSqsClient.COPIED_SCHEMAS],
      ['client-secrets-manager', slimSecrets.COPIED_SCHEMAS],
      ['client-dynamodb', slimDynamo.COPIED_SCHEMAS],
      ['client-dynamodb', slimStore.COPIED_SCHEMAS],
    ] as const;

    for (const [pkg, copied] of copies) {
      // Act
      const packaged = (await import(
        pathToFileURL(join(ROOT, 'node_modules/@aws-sdk', pkg, 'dist-es/schemas/schemas_0.js')).href
      )) as Record<string, unknown>;

      // Assess
      expect(Object.keys(copied).length, pkg).toBeGreaterThan(0);
      for (const [name, schema] of Object.entries(copied))
        expect(schemaGraph(schema), `${pkg} ${name}`).toEqual(schemaGraph(packaged[name]));
    }
  });

  it('set up the middleware and config the generated clients do', () => {
    // Prepare
    const pairs = [
      ['SQS', new SQSClient(clientConfig()), new slimSqs.SQSClient(clientConfig())],
      [
        'SQS (buffer, management, delivery)',
        new SQSClient(clientConfig()),
        new slimSqsClient.SQSClient(clientConfig()),
      ],
      [
        'Secrets Manager',
        new SecretsManagerClient(clientConfig()),
        new slimSecrets.SecretsManagerClient(clientConfig()),
      ],
      ['DynamoDB', new DynamoDBClient(clientConfig()), new slimDynamo.DynamoDBClient(clientConfig())],
      ['DynamoDB (store)', new DynamoDBClient(clientConfig()), new slimStore.DynamoDBClient(clientConfig())],
    ] as const;

    for (const [service, real, slim] of pairs) {
      // Act
      const expected = setUp(real as never);
      const actual = setUp(slim as never);

      // Assess
      expect(actual.middleware, service).toEqual(expected.middleware);
      expect(actual.config, service).toEqual(expected.config);
      expect(Object.keys(slim.config.protocolSettings).sort(), service).toEqual(
        Object.keys(real.config.protocolSettings).sort(),
      );
    }
  });
});
