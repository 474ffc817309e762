/**
 * A large statement import (issue 29): an HTTP import of 100+ rows timed out into a 500 on a loaded
 * machine, four store requests a row in sequence. A batch's rows and transactions are now read and its
 * rows written together, and a request imports only what it can in the time a request has: 202 with
 * where to go on (`next.from`), never a 5xx (docs/statements.md#files).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RelayServices } from '../../shared/app/services';
import { INGEST_BATCH } from '../../shared/app/statements/statement-sink';
import { IMPORT_ANSWER_MARGIN_MS, statementRoute } from '../../shared/http/statement-routes';
import type { InboundRequest } from '../../shared/http/types';
import { ADMIN_HEADERS, startTestRelay, type TestRelay } from '../helpers/relay';
import {
  finalC2b,
  MERCHANT_HEADER,
  merchantRow,
  openStatementWorld,
  type StatementDeps,
  type StatementTable,
} from '../helpers/statement-world';

/**
 * Two whole batches and a part of one: every batch boundary an import crosses, and the last batch short.
 * More rows prove nothing more here (the request has no time budget on the test relay): each is a payment
 * seeded, then a row read, matched and written twice over DynamoDB Local (1,000 rows took twice the CPU).
 */
const ROWS = 2 * INGEST_BATCH + INGEST_BATCH / 4;
const receipt = (n: number) => `SKB${String(n).padStart(7, '0')}`;
/** Row n: a C2B payment of 10:00 + n seconds (Nairobi) on 2026-11-21, for 100 + n shillings. */
const row = (n: number) =>
  merchantRow({
    receipt: receipt(n),
    time: `2026-11-21 ${String(10 + Math.floor(n / 3600)).padStart(2, '0')}:${String(Math.floor(n / 60) % 60).padStart(2, '0')}:${String(n % 60).padStart(2, '0')}`,
    credit: `${100 + n}.00`,
  });
const file = (rows: number) =>
  [MERCHANT_HEADER, ...Array.from({ length: rows }, (_, n) => row(n))].join('\n');
/** Every payment of the file, as the relay holds it after its confirmation callback. */
const payments = (rows: number) =>
  Array.from({ length: rows }, (_, n) =>
    finalC2b({
      account: 'demo',
      reference: receipt(n),
      amount: `${100 + n}`,
      at: '2026-11-21T07:00:00.000Z',
    }),
  );

type ImportAnswer = {
  result: Record<string, number>;
  rowsInFile: number;
  done: boolean;
  next?: { from: number };
};

/** Sums the answers' counts (a file sent again from `next.from` after a 202 is one import). */
function sum(answers: ImportAnswer[]): Record<string, number> {
  const total: Record<string, number> = {};
  for (const a of answers) for (const [k, v] of Object.entries(a.result)) total[k] = (total[k] ?? 0) + v;
  return total;
}

describe(`a ${ROWS}-row statement (batches of ${INGEST_BATCH}) over HTTP on DynamoDB Local`, () => {
  let relay: TestRelay;
  beforeAll(async () => {
    relay = await startTestRelay({
      accounts: { daraja: { demo: { pathSecret: 'daraja-path-secret-0123', shortCode: '600638' } } },
    });
    const all = payments(ROWS);
    for (let at = 0; at < all.length; at += 50)
      await Promise.all(all.slice(at, at + 50).map((tx) => relay.store.createTransaction(tx)));
  }, 180_000);
  afterAll(() => relay?.stop());

  /** The file over HTTP as the CLI sends it: again from `next.from` while the relay answers 202. */
  async function importOverHttp(
    text: string,
  ): Promise<{ statuses: number[]; answers: ImportAnswer[]; refusal?: unknown }> {
    const statuses: number[] = [];
    const answers: ImportAnswer[] = [];
    for (let from = 0; ;) {
      const { status, body } = await relay.request(
        'POST',
        `/v1/statements/daraja/demo/import?file=Mpesa_600638.csv${from ? `&from=${from}` : ''}`,
        text,
        { ...ADMIN_HEADERS, 'content-type': 'text/csv' },
      );
      statuses.push(status);
      if (status !== 200 && status !== 202) return { statuses, answers, refusal: body };
      answers.push(body as ImportAnswer);
      if (status === 200) return { statuses, answers };
      from = (body as ImportAnswer).next!.from;
    }
  }

  const at = { provider: 'daraja', account: 'demo', day: '2026-11-21' };
  /** What the import may write: the day's rows and breaks, and the payments (their revisions). */
  const written = async () => ({
    rows: await relay.statements.listRows(at),
    breaks: await relay.statements.listBreaks(at),
    revisions: (await relay.store.getTransactions(payments(ROWS).map((tx) => tx.key)))
      .map((tx) => `${tx.key.reference}@${tx.revision}`)
      .sort(),
  });

  it('imports every row once, matched to its payment, answering 200 or 202 (never a 5xx)', async () => {
    // Act
    const { statuses, answers, refusal } = await importOverHttp(file(ROWS));
    // Assess
    expect(
      statuses.filter((s) => s !== 200 && s !== 202),
      JSON.stringify(refusal),
    ).toEqual([]);
    expect(sum(answers)).toMatchObject({ rows: ROWS, matched: ROWS, alreadyKnown: 0, opened: 0, breaks: 0 });
    expect(answers.at(-1)).toMatchObject({ done: true, rowsInFile: ROWS });
    const after = await written();
    expect(after.rows).toHaveLength(ROWS);
    expect(after.revisions).toHaveLength(ROWS);
  }, 240_000);

  it('the same file again changes nothing: every row already known, no item written', async () => {
    // Prepare
    const before = await written();
    const events = (await relay.flush()).length;
    // Act
    const { statuses, answers, refusal } = await importOverHttp(file(ROWS));
    // Assess
    expect(
      statuses.filter((s) => s !== 200 && s !== 202),
      JSON.stringify(refusal),
    ).toEqual([]);
    expect(sum(answers)).toMatchObject({ rows: ROWS, alreadyKnown: ROWS, matched: 0, breaks: 0 });
    expect(await written()).toEqual(before);
    expect(await relay.flush()).toHaveLength(events);
  }, 240_000);
});

describe('an import out of time answers 202 and where to go on', () => {
  let table: StatementTable;
  let deps: StatementDeps;
  beforeAll(async () => {
    ({ table, deps } = await openStatementWorld(() => '2026-11-21T12:00:00.000Z'));
  });
  afterAll(() => table?.drop());

  const actor = { kind: 'person', name: 'jane.doe', subject: 'jane', role: 'operator' } as never;
  /** The request as the management function gets it in AWS, with no time left past the answer's margin. */
  const request = (text: string, from?: number): InboundRequest => ({
    requestId: 'req-1',
    method: 'POST',
    path: '/v1/statements/daraja/ke/import',
    headers: {},
    query: { file: 'Mpesa_600638.csv', ...(from ? { from: String(from) } : {}) },
    rawBody: Buffer.from(text),
    sourceIp: '192.0.2.10',
    receivedAt: new Date('2026-11-21T12:00:00.000Z'),
    remainingMs: IMPORT_ANSWER_MARGIN_MS,
  });
  const route = (text: string, from?: number) =>
    statementRoute(
      deps as unknown as RelayServices,
      request(text, from),
      'importStatement',
      { provider: 'daraja', account: 'ke' },
      actor,
    );

  it('takes one row a request when no time is left, and the file is imported whole and once in the end', async () => {
    // Prepare
    const text = [MERCHANT_HEADER, row(0), row(1), row(2)].join('\n');
    // Act
    const first = await route(text);
    const second = await route(text, 1);
    const third = await route(text, 2);
    const again = await route(text);
    // Assess
    expect(first.statusCode).toBe(202);
    expect(first.body).toMatchObject({
      done: false,
      next: { from: 1 },
      rowsInFile: 3,
      result: { rows: 1, opened: 1 },
    });
    expect(second.body).toMatchObject({
      next: { from: 2 },
      result: { rows: 1, opened: 1 },
    });
    expect(third.statusCode).toBe(200);
    expect(third.body).toMatchObject({ done: true, result: { rows: 1, opened: 1 } });
    expect(again.body).toMatchObject({ result: { rows: 1, alreadyKnown: 1 } });
    expect(
      await deps.statements.listRows({ provider: 'daraja', account: 'ke', day: '2026-11-21' }),
    ).toHaveLength(3);
  });

  it('refuses a from past the file, naming its rows, and a malformed file whatever the from', async () => {
    // Prepare
    const text = [MERCHANT_HEADER, row(0)].join('\n');
    // Act
    const past = route(text, 5);
    const malformed = route(
      [MERCHANT_HEADER, row(0), 'Main Store,SKBBAD,Merchant Account,Pay Merchant,yesterday'].join('\n'),
      1,
    );
    // Assess
    await expect(past).rejects.toThrow(/0 to 0 \(it holds 1 rows\)/);
    await expect(malformed).rejects.toMatchObject({ code: 'STATEMENT_FILE_INVALID' });
  });
});
