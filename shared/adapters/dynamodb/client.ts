import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { captureClient } from '../tracing/xray';

/**
 * How long one DynamoDB call may take, so a stalled DynamoDB costs a bounded time instead of the
 * SDK's unbounded default (a C2B validation answer once took 15.3 s). DynamoDB answers item calls in
 * milliseconds; these bounds only cut calls that are not going to answer.
 */
export const DYNAMO_TIMEOUT_DEFAULTS = {
  /** TCP (and TLS) connection set-up, per attempt. */
  connectionTimeoutMs: 1000,
  /** Whole request and response, per attempt (includes the connection set-up). */
  requestTimeoutMs: 1500,
  /** Attempts in all (1 = no retry): 2 × 1.5 s keeps a stalled call within about 3 s. */
  maxAttempts: 2,
} as const;

export interface DynamoClientOptions {
  /** Set ⇒ DynamoDB Local (dummy credentials). */
  endpoint?: string;
  region?: string;
  /** @default DYNAMO_TIMEOUT_DEFAULTS.connectionTimeoutMs */
  connectionTimeoutMs?: number;
  /** @default DYNAMO_TIMEOUT_DEFAULTS.requestTimeoutMs */
  requestTimeoutMs?: number;
  /** @default DYNAMO_TIMEOUT_DEFAULTS.maxAttempts */
  maxAttempts?: number;
  /** Connections open at once, at most (a request waits for one; its requestTimeout runs meanwhile). @default 50 (the SDK's) */
  maxSockets?: number;
}

/**
 * The client's configuration. `endpoint` set ⇒ DynamoDB Local, which accepts any credentials; the fixed
 * dummy ones keep a developer's real AWS profile out of local runs. Every call is bounded by the connection
 * and request timeouts (per attempt) times maxAttempts; a timeout is a retryable TimeoutError.
 */
export function dynamoClientConfig(options: DynamoClientOptions = {}): DynamoDBClientConfig {
  const config: DynamoDBClientConfig = {
    region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
    maxAttempts: options.maxAttempts ?? DYNAMO_TIMEOUT_DEFAULTS.maxAttempts,
    // NodeHttpHandler options (@smithy/node-http-handler): without throwOnRequestTimeout, a request
    // over requestTimeout is only logged as a warning and keeps waiting.
    requestHandler: {
      connectionTimeout: options.connectionTimeoutMs ?? DYNAMO_TIMEOUT_DEFAULTS.connectionTimeoutMs,
      requestTimeout: options.requestTimeoutMs ?? DYNAMO_TIMEOUT_DEFAULTS.requestTimeoutMs,
      throwOnRequestTimeout: true,
      ...(options.maxSockets
        ? { httpAgent: { maxSockets: options.maxSockets }, httpsAgent: { maxSockets: options.maxSockets } }
        : {}),
    },
  };
  if (options.endpoint) {
    config.endpoint = options.endpoint;
    config.credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  }
  return config;
}

/** The DynamoDB client (configured by `dynamoClientConfig`) and the document client over it. */
export function createDynamoClients(options: DynamoClientOptions = {}) {
  // Captured before the document client wraps it: both share its middleware stack (X-Ray subsegments).
  const client = captureClient(new DynamoDBClient(dynamoClientConfig(options)));
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return { client, doc };
}
