/**
 * The test lanes (vitest.config.ts projects; docs/development.md#test-lanes). A file's folder decides its
 * lane, so a new test lands in one without a list to edit:
 *
 * - fast: pure code, the in-memory store, the simulator in process. No Java, no Chromium, no aws-cdk-lib:
 *   `npm run test:fast`, the inner loop.
 * - cdk: CDK synth and the packed tarball (aws-cdk-lib, cdk-nag, esbuild, `npm pack`). No Java.
 * - dynamodb: everything else (integration, e2e, hostile, browser, and any folder not named here): the
 *   only lane whose workers start a DynamoDB Local each (test/helpers/worker-dynamodb.ts).
 *
 * A file under a fast folder that needs DynamoDB Local fails saying where it belongs (dynamoEndpoint in
 * test/helpers/dynamo.ts); test/unit/architecture/test-lanes.test.ts checks the folders exist.
 */
export const FAST_FOLDERS = [
  'test/unit',
  'test/contract',
  'test/simulator',
  'test/docs',
  'test/clients',
  // The subscriber kit's own tests (an npm package of its own: docs/webhooks.md#receiving).
  'packages/subscriber-kit/test',
];
export const CDK_FOLDERS = ['test/infra', 'test/package'];

/** The lane a test file (path relative to the project root, forward slashes) runs in. */
export function laneOf(file: string): 'fast' | 'cdk' | 'dynamodb' {
  const under = (folders: string[]) => folders.some((folder) => file.startsWith(`${folder}/`));
  return under(FAST_FOLDERS) ? 'fast' : under(CDK_FOLDERS) ? 'cdk' : 'dynamodb';
}

/**
 * What a test file needs DynamoDB Local (or `npm start`, which starts its own) for, written in the file
 * itself; test/unit/architecture/test-lanes.test.ts fails for such a file in the fast lane.
 */
export const USES_DYNAMODB_LOCAL =
  /\b(createTestTable|startTestRelay|startHostileRelay|startRelayWithCuttableDynamo|startDynamoDbLocal|startRelayWithSimulator|startDemoWithSimulator|dynamoEndpoint|cuttableForwarder)\(|workerDynamoDb\(|local\/start\.ts/;

/**
 * A test file that builds CDK constructs: loading aws-cdk-lib alone costs seconds, so it runs in the cdk
 * lane (test/infra), and test/unit/architecture/test-lanes.test.ts fails for one in the fast lane.
 */
export const USES_CDK = /from 'aws-cdk-lib[/']/;

/** vitest globs of every test file below these folders. */
export const testsUnder = (folders: string[]) => folders.map((folder) => `${folder}/**/*.test.ts`);
