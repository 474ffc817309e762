/**
 * Attack probes of session 17 that found holes, black-box over HTTP to the real local relay on DynamoDB
 * Local: provider-controlled text in CSV exports that a spreadsheet splitting on semicolons would have
 * run as a formula. (The answers' security headers are checked route by route in quarantine-flood.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  airtelHash,
  c2bBody,
  type RawResponse,
  rawRequest,
  SAFARICOM_IP,
  startHostileRelay,
  uuid,
} from '../helpers/hostile';
import { ADMIN_HEADERS, type TestRelay } from '../helpers/relay';

let relay: TestRelay;

beforeAll(async () => {
  relay = await startHostileRelay();
});

afterAll(async () => {
  await relay?.stop();
});

function send(
  method: string,
  path: string,
  options: { body?: unknown; admin?: boolean; headers?: [string, string][] } = {},
): Promise<RawResponse> {
  const headers: [string, string][] = [['content-type', 'application/json'], ...(options.headers ?? [])];
  if (options.admin) headers.push(...Object.entries(ADMIN_HEADERS));
  return rawRequest(relay.url, {
    method,
    path,
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
  });
}

/**
 * The cells a spreadsheet sees when it splits on `separator` (Excel where the decimal separator is a
 * comma splits a .csv on semicolons): quotes group, as Excel's reader does, and are removed.
 */
function cellsSplitOn(csv: string, separator: string): string[] {
  const cells: string[] = [];
  for (const line of csv.split('\r\n')) {
    let cell = '';
    let quoted = false;
    for (const c of line) {
      if (c === '"') quoted = !quoted;
      else if (c === separator && !quoted) {
        cells.push(cell);
        cell = '';
      } else cell += c;
    }
    cells.push(cell);
  }
  return cells;
}

/** A cell a spreadsheet would run: it starts with a formula sign and is not a plain (negative) number. */
const runs = (cell: string) => /^[=+\-@\t\r]/.test(cell) && !/^-?\d+(\.\d+)?$/.test(cell);

describe('provider text in CSV exports opened by a spreadsheet that splits on semicolons', () => {
  it('never becomes a formula cell: a C2B BillRefNumber and an Airtel failure message with ";=" in them', async () => {
    // Prepare: a C2B payment whose customer typed a formula after a semicolon as the account number,
    // and an Airtel payment failed with a message holding one.
    const transId = `SC${uuid().slice(0, 8).toUpperCase()}`;
    const c2b = await send('POST', '/v1/daraja/open/c2b/confirmation', {
      body: c2bBody(transId, { BillRefNumber: 'ACC-1;=1+cmd|calc!A0', FirstName: 'Jo;@SUM(A1)' }),
      headers: [['x-forwarded-for', SAFARICOM_IP]],
    });
    const airtelId = `AT-${uuid().slice(0, 8)}`;
    const registered = await send('POST', '/v1/transactions', {
      admin: true,
      body: {
        provider: 'airtel',
        account: 'demo',
        kind: 'payment',
        reference: airtelId,
        amount: '500',
        currency: 'UGX',
      },
    });
    const transaction = {
      id: airtelId,
      message: 'Refused;-2+3+cmd|calc!A0',
      status_code: 'TF',
      airtel_money_id: 'MP210603.1234.A00009',
    };
    const airtel = await send('POST', '/v1/airtel/demo/callback', {
      body: { transaction, hash: airtelHash(transaction) },
    });
    expect([c2b.status, registered.status, airtel.status], `${c2b.text} ${airtel.text}`).toEqual([
      200, 201, 200,
    ]);

    // Act: every export those texts reach.
    const exports = await Promise.all(
      [
        '/v1/transactions?format=csv',
        `/v1/transactions/search?q=${transId}&format=csv`,
        `/v1/transactions/daraja/open/${transId}?format=csv&list=timeline`,
        `/v1/transactions/daraja/open/${transId}?format=csv&list=evidence`,
        `/v1/transactions/airtel/demo/${airtelId}?format=csv&list=timeline`,
        `/v1/transactions/airtel/demo/${airtelId}?format=csv&list=evidence`,
        '/v1/report?format=csv',
      ].map(async (path) => ({ path, res: await send('GET', path, { admin: true }) })),
    );

    // Assess: the texts are there, and no cell runs, split on commas or on semicolons.
    for (const { path, res } of exports) expect(res.status, `${path}: ${res.text}`).toBe(200);
    const all = exports.map(({ res }) => res.text).join('\r\n');
    expect(all).toContain('ACC-1;=1+cmd|calc!A0');
    expect(all).toContain('Refused;-2+3+cmd|calc!A0');
    for (const { path, res } of exports)
      for (const separator of [',', ';'])
        expect(cellsSplitOn(res.text, separator).filter(runs), `${path} split on "${separator}"`).toEqual([]);
    // The amount stays a number a spreadsheet adds up.
    const row = exports[0]!.res.text.split('\r\n').find((line) => line.includes(transId))!;
    expect(cellsSplitOn(row, ',')[8]).toBe('10');
  });
});
