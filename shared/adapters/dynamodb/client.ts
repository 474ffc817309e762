import { DynamoDBClient, type DynamoDBClientConfig } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/**
 * `endpoint` set ⇒ DynamoDB Local, which accepts any credentials; the fixed dummy ones keep a
 * developer's real AWS profile out of local runs.
 */
export function createDynamoClients(options: { endpoint?: string; region?: string } = {}) {
  const config: DynamoDBClientConfig = {
    region: options.region ?? process.env.AWS_REGION ?? 'us-east-1',
    maxAttempts: 4,
  };
  if (options.endpoint) {
    config.endpoint = options.endpoint;
    config.credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
  }
  const client = new DynamoDBClient(config);
  const doc = DynamoDBDocumentClient.from(client, {
    marshallOptions: { removeUndefinedValues: true, convertClassInstanceToMap: false },
  });
  return { client, doc };
}
