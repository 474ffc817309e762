/**
 * npm run bench -- --only statements [--rows 1000000]: statement import (docs/statements.md#bench).
 *
 * 1. Rows/s and peak memory of the importer itself, each file size in a child process of its own (its peak
 *    RSS is its own): a generated portal file of 100,000 rows and of `--rows` (default 1,000,000), imported
 *    twice-read as the importer does (checked whole, then imported), through stores that keep nothing, so
 *    the memory measured is the importer's (CSV reader, template, matcher, batches), not a store's.
 * 2. Read and write units per matched row on DynamoDB Local: transactions seeded, then a statement whose
 *    every row matches one, imported with ReturnConsumedCapacity on every call of both stores (reads), and
 *    the items it left sized by AWS's rules (writes: 1 unit per KB of the larger image, index entries too:
 *    scripts/cost/dynamo-units.ts; DynamoDB Local's own count knows neither). Reads are also counted by
 *    AWS's minimums, which DynamoDB Local does not bill: a query answering nothing is billed 0 there, 0.5
 *    (eventually consistent) in AWS, and so is each key a BatchGetItem reads, found or not. The import's
 *    rows/s there.
 */
import { execFileSync } from 'node:child_process';
import { type AttributeValue, ScanCommand } from '@aws-sdk/client-dynamodb';
import { createReadStream, createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startDynamoDbLocal } from '../local/dynamodb-local';
import { createDynamoClients } from '../shared/adapters/dynamodb/client';
import { DynamoRelayStore } from '../shared/adapters/dynamodb/relay-store';
import { ensureTable } from '../shared/adapters/dynamodb/setup';
import { createTableInput } from '../shared/adapters/dynamodb/table';
import { DynamoStatementStore } from '../shared/adapters/dynamodb/statement-store';
import type { RelayLogger, RelayStore } from '../shared/app/ports';
import { importStatement } from '../shared/app/statements/import-statement';
import type { StatementStore } from '../shared/app/statements/statement-store';
import { parseConfig } from '../shared/config/load';
import type { TransactionRecord } from '../shared/domain/transaction';
import { indexShapes, writeUnits } from './cost/dynamo-units';
import { MEASURED_STATEMENT_UNITS } from './cost/statements';

const quiet: RelayLogger = { debug() {}, info() {}, warn() {}, error() {} };
const HEADER = 'Transaction ID,Partner Transaction ID,Datestamp,Amount,Transaction_Status';
const config = parseConfig({
  management: { bearerToken: 'bench-management-token' },
  accounts: { momo: { bench: { pathSecret: 'bench-path-secret-0123' } } },
  statements: {
    templates: {
      'bench-portal': {
        columns: {
          providerId: 'Transaction ID',
          externalId: 'Partner Transaction ID',
          time: 'Datestamp',
          amount: 'Amount',
          status: 'Transaction_Status',
        },
        timeFormat: 'ISO',
        timeZone: 'UTC',
        currency: 'EUR',
      },
    },
  },
});
const DAY_MS = Date.parse('2026-11-21T00:00:00.000Z');

/** Row n of the generated file: a successful payment of the bench account on 2026-11-21. */
/** Row n of the generated file; `matching`: its Partner Transaction ID is transaction n's reference. */
const line = (n: number, matching = false) =>
  `bench-${n},${matching ? `ref-${n}` : `ext-${n}`},${new Date(DAY_MS + (n % 86_400) * 1000).toISOString()},${100 + (n % 900)}.00,SUCCESSFUL`;

async function writeFile(path: string, rows: number, matching = false): Promise<void> {
  const out = createWriteStream(path);
  out.write(`${HEADER}\n`);
  for (let n = 0; n < rows; n++) if (!out.write(`${line(n, matching)}\n`)) await once(out, 'drain');
  out.end();
  await once(out, 'finish');
}

const importer = (deps: Parameters<typeof importStatement>[0], path: string) =>
  importStatement(deps, {
    provider: 'momo',
    account: 'bench',
    ref: 'bench.csv',
    template: 'bench-portal',
    actor: { kind: 'person', name: 'bench' },
    open: () => createReadStream(path, { encoding: 'utf8', highWaterMark: 64 * 1024 }),
  });

/** Stores that keep nothing: every row is new, no transaction is found (each row a missing-in-relay break). */
function discardingStores(): { store: RelayStore; statements: StatementStore } {
  const store = new Proxy({} as RelayStore, {
    get: (_t, name) => async () =>
      /^(find|list|getTransactions|getRecords)/.test(String(name)) ? [] : undefined,
  });
  const statements: StatementStore = {
    getRow: async () => undefined,
    getRows: async () => [],
    putRow: async () => true,
    putRows: async (rows) => rows.map(() => true),
    listRows: async () => [],
    putBreak: async () => true,
    listBreaks: async () => [],
    retireBreak: async () => true,
    listRetiredBreaks: async () => [],
    listBalances: async () => [],
    putBalance: async () => true,
    balanceBefore: async () => undefined,
    putClose: async () => true,
    getClose: async () => undefined,
    listCloses: async () => [],
  };
  return { store, statements };
}

/** The child: generates a file of `rows` rows, imports it, prints {rows, seconds, maxRssMb} as JSON. */
async function child(rows: number): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-statements-'));
  const path = join(dir, 'bench.csv');
  try {
    await writeFile(path, rows);
    const { store, statements } = discardingStores();
    const clock = { now: () => new Date('2026-11-22T12:00:00.000Z') };
    const started = process.hrtime.bigint();
    const answer = await importer({ config, store, statements, clock, log: quiet }, path);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    process.stdout.write(
      JSON.stringify({
        rows: answer.result.rows,
        seconds,
        maxRssMb: process.resourceUsage().maxRSS / 1024,
      }),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function measureInChild(rows: number): { rows: number; seconds: number; maxRssMb: number } {
  const output = execFileSync(
    process.execPath,
    ['--import', 'tsx', join(import.meta.dirname, 'bench-statements.ts'), 'child', String(rows)],
    { encoding: 'utf8', maxBuffer: 1 << 20 },
  );
  return JSON.parse(output.trim().split('\n').pop()!);
}

/** Every item of the table, by key (a bench table: one scan's pages). */
async function itemsOf(
  client: ReturnType<typeof createDynamoClients>['client'],
  tableName: string,
): Promise<Map<string, Record<string, AttributeValue>>> {
  const items = new Map<string, Record<string, AttributeValue>>();
  let cursor: Record<string, AttributeValue> | undefined;
  do {
    const page = await client.send(new ScanCommand({ TableName: tableName, ExclusiveStartKey: cursor }));
    for (const item of page.Items ?? []) items.set(`${item.pk?.S}\u0000${item.sk?.S}`, item);
    cursor = page.LastEvaluatedKey;
  } while (cursor);
  return items;
}

const sameItem = (a: Record<string, AttributeValue>, b: Record<string, AttributeValue>) =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

/** An eventually consistent read of up to 4 KB: AWS's least charge for a query and for each key read. */
const LEAST_READ_UNITS = 0.5;

type Capacity = { CapacityUnits?: number };
const unitsOf = (capacity: Capacity | Capacity[] | undefined) =>
  [capacity ?? []].flat().reduce((n, c) => n + (c.CapacityUnits ?? 0), 0);

/**
 * The read units one request would be billed in AWS, from DynamoDB Local's count: at least 0.5 a query
 * or GetItem, and 0.5 a key a BatchGetItem read (found or not: AWS bills a missing item as read).
 */
export function awsReadUnits(
  command: string,
  input: { RequestItems?: Record<string, { Keys?: unknown[] }> },
  output: {
    ConsumedCapacity?: Capacity | Capacity[];
    UnprocessedKeys?: Record<string, { Keys?: unknown[] }>;
  },
): number | undefined {
  const local = unitsOf(output.ConsumedCapacity);
  // The document client's names (QueryCommand, GetCommand, BatchGetCommand) or the client's own.
  const name = command.replace(/Item(Command)$/, '$1');
  if (name === 'QueryCommand' || name === 'GetCommand') return Math.max(local, LEAST_READ_UNITS);
  if (name !== 'BatchGetCommand') return undefined;
  const keys = (table: Record<string, { Keys?: unknown[] }> | undefined) =>
    Object.values(table ?? {}).reduce((n, t) => n + (t.Keys?.length ?? 0), 0);
  const read = keys(input.RequestItems) - keys(output.UnprocessedKeys);
  return Math.max(local, read * LEAST_READ_UNITS);
}

/**
 * Read and write units per matched row on DynamoDB Local: reads as both stores report every call's
 * capacity; writes by AWS's rules over the items the import changed (scripts/cost/dynamo-units.ts).
 */
export async function unitsPerRow(rows: number): Promise<{
  read: number;
  awsRead: number;
  write: number;
  localWrite: number;
  rowsPerSecond: number;
  byOperation: string;
}> {
  const dynamo = await startDynamoDbLocal();
  const dir = mkdtempSync(join(tmpdir(), 'bench-statements-'));
  try {
    const { client, doc } = createDynamoClients({ endpoint: dynamo.endpoint, requestTimeoutMs: 15_000 });
    const tableName = 'bench-statements';
    await ensureTable(client, tableName);
    const counting = { on: false, read: 0, awsRead: 0, write: 0, ops: new Map<string, number>() };
    // Every request the stores send, as AWS would bill its reads (the stores' hook sees only Local's count).
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const result = await next(args);
        const units = awsReadUnits(
          String(context.commandName),
          args.input as Parameters<typeof awsReadUnits>[1],
          result.output as Parameters<typeof awsReadUnits>[2],
        );
        if (counting.on && units !== undefined) counting.awsRead += units;
        return result;
      },
      { step: 'initialize', name: 'benchAwsReadUnits' },
    );
    const onConsumedCapacity = (
      operation: string,
      capacity:
        { CapacityUnits?: number; ReadCapacityUnits?: number; WriteCapacityUnits?: number } | undefined,
    ) => {
      if (!counting.on || !capacity) return;
      // DynamoDB Local reports CapacityUnits; reads and writes are told apart by the operation.
      const units = capacity.CapacityUnits ?? 0;
      const isWrite = /^(put|create|replace|record|claim|update|retire)/i.test(operation);
      if (isWrite) counting.write += units;
      else counting.read += units;
      counting.ops.set(operation, (counting.ops.get(operation) ?? 0) + units);
    };
    const retention = parseConfig({ management: { bearerToken: 'bench-management-token' } }).retention;
    const store = new DynamoRelayStore(doc, { tableName, retention, onConsumedCapacity });
    const statements = new DynamoStatementStore(doc, { tableName, retentionDays: 400, onConsumedCapacity });
    for (let n = 0; n < rows; n++) {
      const at = new Date(DAY_MS + (n % 86_400) * 1000).toISOString();
      const tx: TransactionRecord = {
        key: { provider: 'momo', account: 'bench', reference: `ref-${n}` },
        kind: 'requesttopay',
        status: 'SUCCEEDED',
        registered: true,
        amount: { value: `${100 + (n % 900)}.00`, currency: 'EUR' },
        msisdn: undefined,
        externalId: undefined,
        providerTransactionId: `bench-${n}`,
        reason: undefined,
        party: undefined,
        metadata: undefined,
        attributes: {},
        createdAt: at,
        updatedAt: at,
        reconcileUntil: at,
        revision: 1,
        transitions: [{ from: 'PENDING', to: 'SUCCEEDED', at, origin: 'poll', receiptId: undefined }],
        conflicts: [],
        events: [],
        outbox: [],
      };
      await store.createTransaction(tx);
    }
    const path = join(dir, 'matched.csv');
    await writeFile(path, rows, true);
    const before = await itemsOf(client, tableName);
    counting.on = true;
    const clock = { now: () => new Date('2026-11-22T12:00:00.000Z') };
    const started = process.hrtime.bigint();
    const answer = await importer({ config, store, statements, clock, log: quiet }, path);
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    counting.on = false;
    const indexes = indexShapes(createTableInput(tableName));
    let ruleWrites = 0;
    for (const [key, item] of await itemsOf(client, tableName)) {
      const was = before.get(key);
      if (!was || !sameItem(was, item)) ruleWrites += writeUnits(was, item, indexes).total;
    }
    doc.destroy();
    const matched = answer.result.matched + answer.result.settled;
    return {
      read: counting.read / matched,
      awsRead: counting.awsRead / matched,
      write: ruleWrites / matched,
      localWrite: counting.write / matched,
      rowsPerSecond: answer.result.rows / seconds,
      byOperation: [...counting.ops.entries()]
        .map(([op, units]) => `${op} ${(units / matched).toFixed(2)}`)
        .join(', '),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
    await dynamo.stop();
  }
}

/** Rows of the matched statement whose units are measured (a thousand: several batches). */
const UNITS_ROWS = 1000;

export async function statementsBench(
  out: (line?: string) => void,
  options: { rows: number },
): Promise<void> {
  out();
  out('Statement import (docs/statements.md#bench)');
  out('| measure | value | target |');
  out('|---|---|---|');
  const sizes = [...new Set([100_000, options.rows])].sort((a, b) => a - b);
  const runs = sizes.map((rows) => measureInChild(rows));
  for (const r of runs) {
    out(
      `| rows/s, ${r.rows.toLocaleString('en')}-row file (importer, stores that keep nothing) | ${Math.round(r.rows / r.seconds).toLocaleString('en')} | reported |`,
    );
    out(
      `| peak RSS, ${r.rows.toLocaleString('en')}-row file (child process) | ${r.maxRssMb.toFixed(0)} MB | flat in file size |`,
    );
  }
  if (runs.length > 1) {
    const [small, large] = [runs[0]!, runs[runs.length - 1]!];
    out(
      `| peak RSS ${large.rows.toLocaleString('en')} ÷ ${small.rows.toLocaleString('en')} rows | ${(large.maxRssMb / small.maxRssMb).toFixed(2)}× for ${(large.rows / small.rows).toFixed(0)}× the rows | ≈ 1× |`,
    );
  }
  const units = await unitsPerRow(UNITS_ROWS);
  out(
    `| rows/s, ${UNITS_ROWS.toLocaleString('en')} matched rows into DynamoDB Local (batched reads and writes) | ${Math.round(units.rowsPerSecond).toLocaleString('en')} | reported |`,
  );
  out(
    `| read units per matched row (DynamoDB Local's ConsumedCapacity, ${UNITS_ROWS.toLocaleString('en')} rows) | ${units.read.toFixed(3)} | reported |`,
  );
  out(
    `| read units per matched row in AWS (Local's count with AWS's least charges: 0.5 a query or key read, found or not, which Local bills 0) | ${units.awsRead.toFixed(3)} | ≤ 1 |`,
  );
  out(
    `| write units per matched row (items written, AWS's 1 KB rule and index entries; Local counted ${units.localWrite.toFixed(3)}) | ${units.write.toFixed(3)} | ≤ 1 |`,
  );
  out(`| units per matched row by operation (DynamoDB Local's count) | ${units.byOperation} | |`);
  // The cost prices what AWS bills: the writes by the 1 KB rule and the reads with AWS's least charges.
  const priced = MEASURED_STATEMENT_UNITS;
  const same =
    priced.readUnitsPerRow.toFixed(2) === units.awsRead.toFixed(2) &&
    priced.writeUnitsPerRow.toFixed(2) === units.write.toFixed(2);
  out(
    `| units per row npm run cost prices (write / read, both as AWS bills them) | ${priced.writeUnitsPerRow} / ${priced.readUnitsPerRow} | ${same ? '✔ as measured' : `✘ measured ${units.write.toFixed(2)} / ${units.awsRead.toFixed(2)}: update MEASURED_STATEMENT_UNITS in scripts/cost/statements.ts`} |`,
  );
}

if (process.argv[2] === 'child') {
  child(Number(process.argv[3])).catch((error) => {
    process.stderr.write(`${(error as Error).stack ?? String(error)}\n`);
    process.exit(1);
  });
}
