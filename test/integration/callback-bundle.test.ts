import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { build } from 'esbuild';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { relayBuildOptions } from '../../infra/bundling';
import { createTestTable } from '../helpers/dynamo';

/*
 * The callback function as deployed: built with the construct's esbuild options (infra/bundling.ts: the
 * zod/mini schemas, the SDK shims of infra/lambda-shims/), loaded by a fresh `node` with the Lambda's
 * environment, and invoked with a real MoMo callback against DynamoDB Local. A shim that drops something
 * the callback path runs, or a schema that only works with classic zod loaded beside it, fails here.
 */

const run = promisify(execFile);
const PATH_SECRET = 'bundle-test-secret-0123';
const REFERENCE = randomUUID();
const INVOKE =
  'const { handler } = await import(process.argv[1]); ' +
  'const response = await handler(JSON.parse(process.argv[2]), { awsRequestId: "bundle-test", getRemainingTimeInMillis: () => 8000 }); ' +
  'process.stdout.write(JSON.stringify(response));';

let outdir: string;
let file: string;
/** The bundle's inputs (our files and packages) that left bytes in it. */
let inputs: string[];
let table: Awaited<ReturnType<typeof createTestTable>>;

beforeAll(async () => {
  outdir = mkdtempSync(join(tmpdir(), 'relay-callback-bundle-'));
  file = join(outdir, 'index.mjs');
  const built = await build(relayBuildOptions('callback', file));
  const output = Object.values(built.metafile?.outputs ?? {}).find((o) => o.entryPoint);
  inputs = Object.entries(output?.inputs ?? {}).flatMap(([path, input]) =>
    input.bytesInOutput > 0 ? [path] : [],
  );
  table = await createTestTable();
});

afterAll(async () => {
  await table?.drop();
  rmSync(outdir, { recursive: true, force: true });
});

function callbackEvent(body: string) {
  const path = `/v1/momo/demo/${PATH_SECRET}/requesttopay/${REFERENCE}`;
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: path,
    rawQueryString: '',
    headers: { 'content-type': 'application/json' },
    isBase64Encoded: false,
    body,
    requestContext: {
      accountId: '123456789012',
      apiId: 'api',
      domainName: 'relay.example.com',
      domainPrefix: 'relay',
      http: { method: 'PUT', path, protocol: 'HTTP/1.1', sourceIp: '198.51.100.7', userAgent: 'momo' },
      requestId: 'bundle-test',
      routeKey: '$default',
      stage: '$default',
      time: '26/Nov/2026:00:00:00 +0000',
      timeEpoch: Date.now(),
    },
  };
}

/** A fresh `node` loads the bundle with the Lambda's environment and `config`, and invokes it with `event`. */
function invoke(config: unknown, event: unknown) {
  return run(
    process.execPath,
    ['--input-type=module', '--no-warnings', '-e', INVOKE, file, JSON.stringify(event)],
    {
      cwd: outdir,
      timeout: 60_000,
      env: {
        PATH: process.env.PATH ?? '',
        AWS_REGION: 'eu-west-1',
        AWS_ACCESS_KEY_ID: 'test',
        AWS_SECRET_ACCESS_KEY: 'test',
        AWS_ENDPOINT_URL_DYNAMODB: table.endpoint,
        TABLE_NAME: table.tableName,
        RELAY_CONFIG_JSON: JSON.stringify(config),
        POWERTOOLS_SERVICE_NAME: 'relay-callback',
        POWERTOOLS_METRICS_NAMESPACE: 'MobileMoneyRelay',
        LOG_LEVEL: process.env.BUNDLE_TEST_LOG_LEVEL ?? 'INFO',
      },
    },
  );
}

describe('callback bundle', () => {
  it('starts with the deployed environment and stores a real MoMo callback', async () => {
    const body = readFileSync(join(__dirname, '../fixtures/momo/requesttopay-successful.json'), 'utf8');
    const config = {
      publicBaseUrl: 'https://relay.example.com',
      management: { auth: 'iam' },
      // A cold process's first DynamoDB Local call on a busy machine may outlast MoMo's 1.2 s store budget.
      ackBudgets: { momo: { storeMs: 20_000, ackMs: 25_000 } },
      accounts: { momo: { demo: { pathSecret: PATH_SECRET, currency: 'EUR' } } },
    };
    const { stdout, stderr } = await invoke(config, callbackEvent(body));
    if (process.env.BUNDLE_TEST_LOG_LEVEL) console.log(stdout, stderr);
    const response = JSON.parse(stdout.slice(stdout.lastIndexOf('{"statusCode"'))) as { statusCode: number };
    expect(response.statusCode).toBe(200);
    // Its log line written through the bundle's Logger shim, with the invocation's request id.
    const handled = stdout
      .split('\n')
      .filter((line) => line.startsWith('{"level"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .find((line) => line.message === 'callback handled');
    expect(handled).toMatchObject({
      level: 'INFO',
      service: 'relay-callback',
      request_id: 'bundle-test',
      provider: 'momo',
      statusCode: 200,
    });
    // Its metrics flushed after the invocation, as one EMF document per dimension set.
    expect(stdout).toMatch(
      /^\{"_aws":\{"Timestamp":\d+,"CloudWatchMetrics":\[\{"Namespace":"MobileMoneyRelay"/m,
    );
    const items = await table.listAll();
    expect(JSON.stringify(items)).toContain(REFERENCE);
    expect(JSON.stringify(items)).toContain('363440463');
  });

  it('fails its cold start on a malformed runtime config, naming the bad keys', async () => {
    // Arrange
    const config = {
      management: { auth: 'iam' },
      limits: { maxBodyBytes: 'big' },
      edge: { mode: 'cloudfront' },
      accounts: { momo: { demo: { pathSecret: PATH_SECRET, currency: 'EUR' } } },
    };
    // Act
    const failed = await invoke(config, callbackEvent('{}')).then(
      () => undefined,
      (error: { stderr: string }) => error,
    );
    // Assess
    expect(failed?.stderr).toContain('Invalid relay config:');
    expect(failed?.stderr).toContain('limits.maxBodyBytes');
    expect(failed?.stderr).toContain('edge.originVerifySecrets');
  });

  it('leaves out what the callback path never runs: statements, webhook deliveries, status API clients, the other config sections', () => {
    // Act
    const unneeded = inputs.filter((path) =>
      /shared\/adapters\/dynamodb\/(statement-store|delivery-log|destination-state-store)|shared\/adapters\/sqs\/sqs-delivery-queue|shared\/app\/delivery\/|shared\/providers\/[^/]+\/api-client|shared\/app\/statements\/statement-sink|shared\/config\/(schema|load)\.ts|shared\/destinations\//.test(
        path,
      ),
    );
    // Assess
    expect(unneeded).toEqual([]);
    expect(inputs).toContain('functions/callback/index.ts');
  });
});
