import type { TestProject } from 'vitest/node';
import { type DynamoDbLocalHandle, startDynamoDbLocal } from '../../local/dynamodb-local';

let handle: DynamoDbLocalHandle | undefined;

/** One DynamoDB Local for the whole run; every test file creates its own uniquely named table. */
export async function setup(project: TestProject): Promise<void> {
  handle = await startDynamoDbLocal();
  project.provide('dynamoEndpoint', handle.endpoint);
}

export async function teardown(): Promise<void> {
  await handle?.stop();
}
