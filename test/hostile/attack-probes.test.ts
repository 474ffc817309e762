/**
 * Attack probes of session 17 that found holes, black-box over HTTP to the real local relay on DynamoDB
 * Local: provider-controlled text in CSV exports that a spreadsheet splitting on semicolons would have
 * run as a formula; registered references that look like another one (a direction override, a zero-width
 * space, full-width letters). (The answers' security headers are checked route by route in
 * quarantine-flood.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  airtelHash,
  auditedSince,
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

describe('a registered reference or externalId that would look like another one', () => {
  it('is refused with 400 naming what is wrong and recorded in the audit log, while its plain twin registers', async () => {
    // Prepare
    const tail = uuid().slice(0, 6);
    const since = new Date().toISOString();
    const registration = (fields: Record<string, string>) => ({
      provider: 'airtel',
      account: 'demo',
      kind: 'payment',
      amount: '500',
      currency: 'UGX',
      ...fields,
    });
    const lookalikes = {
      'a right-to-left override (INV‮4321 reads INV1234)': { reference: `INV\u202E4321-${tail}` },
      'a zero-width space': { reference: `INV\u200B1234-${tail}` },
      'a left-to-right isolate': { reference: `INV\u20661234-${tail}` },
      'full-width letters and digits': { reference: `ＩＮＶ１２３４-${tail}` },
      'an accent as a separate mark': { reference: `CAFE\u0301-${tail}` },
      'an externalId with a right-to-left override': {
        reference: `INV-A-${tail}`,
        externalId: 'order\u202E99',
      },
    };

    // Act
    const refused = await Promise.all(
      Object.entries(lookalikes).map(async ([what, fields]) => ({
        what,
        res: await send('POST', '/v1/transactions', { admin: true, body: registration(fields) }),
      })),
    );
    const plain = await send('POST', '/v1/transactions', {
      admin: true,
      body: registration({ reference: `INV1234-${tail}`, externalId: 'order99' }),
    });

    // Assess
    for (const { what, res } of refused) {
      expect(res.status, `${what}: ${res.text}`).toBe(400);
      expect(res.json.error, what).toEqual({
        code: 'INVALID_REFERENCE',
        message: 'bidi, invisible or full-width characters',
      });
    }
    expect(plain.status, plain.text).toBe(201);
    const audited = (await auditedSince(relay, since)).filter(
      (e) => e.action === 'transaction.register' && e.outcome === 'refused' && e.httpStatus === 400,
    );
    expect(audited).toHaveLength(Object.keys(lookalikes).length);
  });
});
