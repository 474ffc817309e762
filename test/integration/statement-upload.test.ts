import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createStatementsHandler } from '../../functions/statements/handler';
import { DynamoStatementStore } from '../../shared/adapters/dynamodb/statement-store';
import { S3StatementObjects } from '../../shared/adapters/s3/statement-objects';
import type { RelayLogger, RelayMetrics } from '../../shared/app/ports';
import { createTestTable } from '../helpers/dynamo';
import {
  MERCHANT_HEADER as HEADER,
  merchantRow,
  statementConfig as config,
} from '../helpers/statement-world';

/**
 * The statements function's import path end to end: a real S3 event notification (the "event message
 * structure" S3 sends Lambda, version 2.1), the S3 adapter signing real SigV4 requests to an HTTP stand-in
 * for S3 that streams the object in chunks (no S3 emulator runs here), the import use case, DynamoDB Local.
 */

const BUCKET = 'relay-statements-123456789012';
const PRINCIPAL = 'AWS:AROAEXAMPLEROLEID:jane.doe@example.com';
const line = (receipt: string, amount = '1500.00') => merchantRow({ receipt, credit: amount });

/** An S3 ObjectCreated:Put notification as S3 sends it (keys URL-encoded, spaces as `+`). */
function s3Event(key: string, size: number) {
  return {
    Records: [
      {
        eventVersion: '2.1',
        eventSource: 'aws:s3',
        awsRegion: 'eu-west-1',
        eventTime: '2026-11-22T07:15:00.123Z',
        eventName: 'ObjectCreated:Put',
        userIdentity: { principalId: PRINCIPAL },
        requestParameters: { sourceIPAddress: '203.0.113.10' },
        responseElements: {
          'x-amz-request-id': 'C3D13FE58DE4C810',
          'x-amz-id-2': 'FMyUVURIY8/IgAtTv8xRjskZQpcIZ9KG4V5Wp6S7S/JRWeUWerMUE5JgHvANOjpD',
        },
        s3: {
          s3SchemaVersion: '1.0',
          configurationId: 'StatementImports',
          bucket: {
            name: BUCKET,
            ownerIdentity: { principalId: 'A3NL1KOZZKExample' },
            arn: `arn:aws:s3:::${BUCKET}`,
          },
          object: {
            key: encodeURIComponent(key).replace(/%2F/g, '/').replace(/%20/g, '+'),
            size,
            eTag: 'd41d8cd98f00b204e9800998ecf8427e',
            sequencer: '0055AED6DCD90281E5',
          },
        },
      },
    ],
  };
}

/** Objects by `/<bucket>/<key>` (path style), and every request's method, path and signature header. */
const objects = new Map<string, Buffer>();
const requests: Array<{ method: string; path: string; authorization: string; contentSha: string }> = [];
const stalled: ServerResponse[] = [];
let server: Server;
let endpoint: string;

const body = (req: IncomingMessage) =>
  new Promise<Buffer>((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
  });

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const path = decodeURIComponent(req.url!.split('?')[0]!);
    requests.push({
      method: req.method!,
      path,
      authorization: String(req.headers.authorization ?? ''),
      contentSha: String(req.headers['x-amz-content-sha256'] ?? ''),
    });
    if (req.method === 'PUT') {
      objects.set(path, await body(req));
      res.writeHead(200).end();
      return;
    }
    const object = objects.get(path);
    if (!object) {
      res.writeHead(404, { 'content-type': 'application/xml' }).end('<Error><Code>NoSuchKey</Code></Error>');
      return;
    }
    // In small chunks, as a large object arrives: the reader must never need it whole.
    res.writeHead(200, { 'content-type': 'text/csv' });
    // A stalled object: its first chunk, then nothing until the test cuts the connection.
    if (path.includes('stalled')) {
      res.write(object.subarray(0, 64));
      stalled.push(res);
      return;
    }
    for (let i = 0; i < object.length; i += 64) res.write(object.subarray(i, i + 64));
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  table = await createTestTable();
});

let table: Awaited<ReturnType<typeof createTestTable>>;
afterAll(async () => {
  await table.drop();
  await new Promise((resolve) => server.close(resolve));
});

function handlerWith(now = '2026-11-22T07:15:01.000Z') {
  const counted: Record<string, number> = {};
  const logged: Array<{ message: string; fields: Record<string, unknown> | undefined }> = [];
  const log: RelayLogger = {
    debug: () => {},
    info: (message, fields) => logged.push({ message, fields }),
    warn: (message, fields) => logged.push({ message, fields }),
    error: (message, fields) => logged.push({ message, fields }),
  };
  const metrics: RelayMetrics = {
    count: (name, value = 1) => {
      counted[name] = (counted[name] ?? 0) + value;
    },
    timing: () => {},
    flush: () => {},
  };
  const handler = createStatementsHandler({
    config,
    store: table.store,
    statements: new DynamoStatementStore(table.doc, { tableName: table.tableName, retentionDays: 400 }),
    clock: { now: () => new Date(now) },
    log,
    scrub: (text) => text,
    metrics,
    objects: new S3StatementObjects({
      region: 'eu-west-1',
      endpoint,
      credentials: async () => ({ accessKeyId: 'AKIDSTATEMENTTEST', secretAccessKey: 'test-secret-key' }),
    }),
  });
  return { handler, counted, logged };
}

const upload = (key: string, text: string) => {
  objects.set(`/${BUCKET}/${key}`, Buffer.from(text));
  return s3Event(key, Buffer.byteLength(text));
};
const reportOf = (key: string) =>
  JSON.parse(objects.get(`/${BUCKET}/reports/${key.slice('statements/'.length)}.json`)!.toString('utf8'));

describe('the statements function imports an upload to the statement bucket', () => {
  it('streams the object through the import and names the uploader as the operator on the evidence', async () => {
    // Prepare
    const key = 'statements/daraja/ke/Mpesa 600638 20261121.csv';
    const event = upload(key, [HEADER, line('SKU0000001'), line('SKU0000002', '250.00')].join('\n'));
    const { handler, counted } = handlerWith();
    // Act
    const answer = (await handler(event, {} as never)) as { imports: Array<{ status: string }> };
    // Assess
    expect(answer.imports.map((i) => i.status)).toEqual(['imported']);
    expect(counted).toEqual({ StatementImportsDone: 1 });
    expect(reportOf(key)).toMatchObject({
      status: 'imported',
      by: PRINCIPAL,
      layout: 'mpesa-merchant',
      result: { rows: 2, opened: 2 },
    });
    // Signed SigV4 requests: the report (importing), the first lines read for the layout, then the file
    // checked whole, then imported; the report (imported).
    const signed = requests.filter((r) => r.path.includes('20261121'));
    expect(signed.map((r) => r.method)).toEqual(['PUT', 'GET', 'GET', 'GET', 'PUT']);
    for (const r of signed) {
      expect(r.authorization).toMatch(
        /^AWS4-HMAC-SHA256 Credential=AKIDSTATEMENTTEST\/\d{8}\/eu-west-1\/s3\/aws4_request, SignedHeaders=[a-z0-9;-]*x-amz-content-sha256[a-z0-9;-]*, Signature=[0-9a-f]{64}$/,
      );
      expect(r.contentSha).toBe('UNSIGNED-PAYLOAD');
    }
    // Each opened transaction's evidence is the statement row, authenticated as the operator who uploaded it.
    const evidence = (await table.listAll())
      .filter((item) => item.itemType === 'transaction')
      .flatMap((item) => (item.evidence as Array<Record<string, unknown>> | undefined) ?? [])
      .filter((e) => e.source === 'statement');
    expect(evidence).toHaveLength(2);
    for (const e of evidence)
      expect(e).toMatchObject({
        authenticated: true,
        authentication: ['operator'],
        actor: { id: PRINCIPAL, name: PRINCIPAL, role: 'operator', via: 'iam' },
      });
  });

  it('imports the same upload again without changing an item', async () => {
    // Prepare
    const key = 'statements/daraja/ke/again.csv';
    const event = upload(key, [HEADER, line('SKU0000003')].join('\n'));
    const { handler } = handlerWith();
    await handler(event, {} as never);
    const before = await table.listAll();
    // Act
    await handler(event, {} as never);
    // Assess
    expect(reportOf(key)).toMatchObject({ status: 'imported', result: { rows: 1, alreadyKnown: 1 } });
    expect(await table.listAll()).toEqual(before);
  });

  it('refuses a malformed file whole, naming its row and column in the report and the log', async () => {
    // Prepare: the third row's amount is not a number.
    const key = 'statements/daraja/ke/broken.csv';
    const event = upload(key, [HEADER, line('SKU0000004'), line('SKU0000005', 'abc')].join('\n'));
    const { handler, counted, logged } = handlerWith();
    const before = await table.listAll();
    // Act
    const answer = (await handler(event, {} as never)) as { imports: Array<{ status: string }> };
    // Assess
    expect(answer.imports.map((i) => i.status)).toEqual(['refused']);
    expect(counted).toEqual({ StatementImportsRefused: 1 });
    const report = reportOf(key);
    expect(report).toMatchObject({
      status: 'refused',
      by: PRINCIPAL,
      error: { code: 'STATEMENT_FILE_INVALID', line: 3, column: 'CREDIT_AMOUNT' },
    });
    expect(logged).toContainEqual({
      message: 'statement import refused',
      fields: expect.objectContaining({ key, line: 3, column: 'CREDIT_AMOUNT', by: PRINCIPAL }),
    });
    // Nothing half-imported: the good first row is not stored either.
    expect(await table.listAll()).toEqual(before);
  });

  it('refuses a key outside the layout and an unknown account, without reading the object', async () => {
    // Prepare
    const { handler, counted } = handlerWith();
    const reads = () => requests.filter((r) => r.method === 'GET').length;
    const readsBefore = reads();
    // Act
    await handler(upload('statements/daraja/ke/extra/deep/file.csv', HEADER), {} as never);
    await handler(upload('statements/daraja/nowhere/file.csv', HEADER), {} as never);
    // Assess
    expect(counted).toEqual({ StatementImportsRefused: 2 });
    expect(reportOf('statements/daraja/ke/extra/deep/file.csv').error.message).toMatch(
      /statements\/<provider>\/<account>/,
    );
    expect(reportOf('statements/daraja/nowhere/file.csv').error.code).toBe('UNKNOWN_ACCOUNT');
    expect(reads()).toBe(readsBefore);
  });

  it('takes the template named in the key, and refuses a template nobody declared', async () => {
    // Prepare
    const named = 'statements/daraja/ke/template=mpesa-merchant/named.csv';
    const unknown = 'statements/daraja/ke/template=nosuch/file.csv';
    const { handler } = handlerWith();
    // Act
    await handler(upload(named, [HEADER, line('SKU0000006')].join('\n')), {} as never);
    await handler(upload(unknown, [HEADER, line('SKU0000007')].join('\n')), {} as never);
    // Assess
    expect(reportOf(named)).toMatchObject({
      status: 'imported',
      layout: 'mpesa-merchant',
      result: { rows: 1 },
    });
    // Named, the layout is not detected: the file is read twice (checked, imported), not three times.
    expect(requests.filter((r) => r.path.endsWith('named.csv')).map((r) => r.method)).toEqual(['GET', 'GET']);
    expect(reportOf(unknown)).toMatchObject({
      status: 'refused',
      error: { code: 'SCHEMA_VALIDATION_FAILED' },
    });
    expect(reportOf(unknown).error.message).toMatch(/No statement template "nosuch"/);
  });

  it('refuses a template named like an object’s own property as one nobody declared (was a 500)', async () => {
    // Prepare
    const keys = ['__proto__', 'toString', 'constructor'].map(
      (name) => `statements/daraja/ke/template=${name}/file.csv`,
    );
    const { handler } = handlerWith();
    // Act
    for (const key of keys) await handler(upload(key, [HEADER, line('SKU0000008')].join('\n')), {} as never);
    // Assess
    for (const key of keys) {
      expect(reportOf(key), key).toMatchObject({
        status: 'refused',
        error: { code: 'SCHEMA_VALIDATION_FAILED' },
      });
      expect(reportOf(key).error.message).toMatch(/No statement template/);
    }
  });

  it('answers an S3 error as a thrown failure (the invocation is retried), not as a refusal, and reports it failed', async () => {
    // Prepare: a notification for an object that is not there (deleted meanwhile).
    const { handler, counted, logged } = handlerWith();
    const event = s3Event('statements/daraja/ke/gone.csv', 10);
    // Act + Assess
    await expect(handler(event, {} as never)).rejects.toThrow(/S3 GET .*gone\.csv: 404 NoSuchKey/);
    expect(counted).toEqual({});
    // The upload is never silent: its report says it failed and what to do; the log line names the key.
    expect(reportOf('statements/daraja/ke/gone.csv')).toMatchObject({
      status: 'failed',
      key: 'statements/daraja/ke/gone.csv',
      error: { message: expect.stringMatching(/404 NoSuchKey/) },
      next: expect.stringMatching(/upload the same file again/),
    });
    expect(logged.find((l) => l.message === 'statement import failed')?.fields).toMatchObject({
      key: 'statements/daraja/ke/gone.csv',
    });
  });
  it('says an import is under way before it reads the file, so an import stopped half-way is never silent', async () => {
    // Prepare: an object whose download stalls after its first chunk (as a function out of time sees it).
    const key = 'statements/daraja/ke/stalled 20261121.csv';
    const event = upload(
      key,
      [HEADER, ...Array.from({ length: 20 }, (_, i) => line(`SKU10${i}`))].join('\n'),
    );
    const { handler } = handlerWith();
    // Act
    const running = handler(event, {} as never);
    const settled = running.then(
      () => 'resolved',
      (error: Error) => error.message,
    );
    // Assess: while the import waits on the file, its report says so and what to do if it stays.
    await vi.waitFor(() => expect(stalled).toHaveLength(1), { timeout: 30_000 });
    expect(reportOf(key)).toMatchObject({
      status: 'importing',
      by: PRINCIPAL,
      next: expect.stringMatching(/upload the same file again to go on/),
    });
    // The connection cut (the outage case): the same report now says it failed.
    stalled[0]!.destroy();
    expect(await settled).not.toBe('resolved');
    expect(reportOf(key)).toMatchObject({ status: 'failed', key });
  });
});
