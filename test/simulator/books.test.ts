/**
 * Issue 29 item 7: the simulated providers keep the books and serve them as the real ones do (Daraja's
 * Pull Transactions API, balances, statements in the real layouts), with faults on what they serve.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../../simulator/options';
import type { Simulator } from '../../simulator/server';
import { MPESA_MERCHANT_HEADER, MPESA_PAYBILL_HEADER } from '../../simulator/core/statements';
import { call, eventually, type Receiver, startReceiver, startSim } from './helpers';

const D = DEFAULTS.daraja;
const SHORT_CODE = '600638';

let sim: Simulator;
let rx: Receiver;

async function open(options: Parameters<typeof startSim>[0] = {}) {
  rx = await startReceiver();
  sim = await startSim(options);
}
afterEach(async () => {
  await sim?.close();
  await rx?.close();
});

async function token(): Promise<string> {
  const r = await call(sim, 'GET', '/oauth/v1/generate?grant_type=client_credentials', {
    headers: {
      Authorization: `Basic ${Buffer.from(`${D.consumerKey}:${D.consumerSecret}`).toString('base64')}`,
    },
  });
  return r.json.access_token;
}
const auth = (t: string) => ({ Authorization: `Bearer ${t}` });

/** A completed C2B payment (URLs registered, no external validation): booked on the short code. */
async function pay(t: string, amount: number, billRef: string) {
  const r = await call(sim, 'POST', '/mpesa/c2b/v1/simulate', {
    headers: auth(t),
    body: {
      ShortCode: SHORT_CODE,
      CommandID: 'CustomerPayBillOnline',
      Amount: amount,
      Msisdn: 254708374149,
      BillRefNumber: billRef,
    },
  });
  expect(r.json.SimulatorOutcome.completed).toBe(true);
  return r.json;
}

async function registerC2b(t: string) {
  await call(sim, 'POST', '/mpesa/c2b/v1/registerurl', {
    headers: auth(t),
    body: {
      ShortCode: SHORT_CODE,
      ResponseType: 'Completed',
      ConfirmationURL: `${rx.url}/v1/daraja/ke/c2b/confirmation`,
      ValidationURL: `${rx.url}/v1/daraja/ke/c2b/validation`,
    },
  });
}

const pullRegister = (t: string) =>
  call(sim, 'POST', '/mpesa/pulltransactions/v1/register', {
    headers: auth(t),
    body: {
      ShortCode: SHORT_CODE,
      RequestType: 'Pull',
      NominatedNumber: '254708374149',
      CallBackURL: `${rx.url}/pull`,
    },
  });

/** "YYYY-MM-DD HH:mm:ss" in East Africa Time. */
function eat(ms: number): string {
  return new Date(ms + 3 * 3600_000).toISOString().slice(0, 19).replace('T', ' ');
}
const pullQuery = (t: string, offset = 0, from = Date.now() - 3600_000, to = Date.now() + 60_000) =>
  call(sim, 'POST', '/mpesa/pulltransactions/v1/query', {
    headers: auth(t),
    body: { ShortCode: SHORT_CODE, StartDate: eat(from), EndDate: eat(to), OffSetValue: String(offset) },
  });

describe('Daraja Pull Transactions API from the books', () => {
  beforeEach(() => open());

  it('answers 1000 on the first registration and 1001 (already registered) on the second', async () => {
    const t = await token();
    expect((await pullRegister(t)).json).toMatchObject({ ResponseCode: '1000' });
    expect((await pullRegister(t)).json).toMatchObject({ ResponseCode: '1001' });
  });

  it('lists every C2B payment by receipt, page by page with OffSetValue, then 1001 with the empty list', async () => {
    const t = await token();
    await registerC2b(t);
    await pullRegister(t);
    const receipts = [];
    for (let i = 1; i <= 3; i++) receipts.push((await pay(t, 100 * i, `ACC-${i}`)).TransID ?? undefined);
    await call(sim, 'PUT', '/_sim/books/faults', { body: { pullPageSize: 2 } });

    const first = await pullQuery(t, 0);
    const second = await pullQuery(t, 2);
    const end = await pullQuery(t, 3);

    expect(first.status).toBe(200);
    expect(first.json.ResponseCode).toBe('1000');
    expect(first.json.Response[0]).toHaveLength(2);
    expect(second.json.Response[0]).toHaveLength(1);
    const rows = [...first.json.Response[0], ...second.json.Response[0]];
    const books = (await call(sim, 'GET', `/_sim/books/daraja/${SHORT_CODE}`)).json;
    expect(rows.map((r: { transactionId: string }) => r.transactionId)).toEqual(
      books.entries.map((e: { id: string }) => e.id),
    );
    expect(rows[2]).toMatchObject({
      amount: '300',
      billreference: 'ACC-3',
      transactiontype: 'c2b-pay-bill-debit',
    });
    expect(rows[0].msisdn).toMatch(/^2547\d?\*{4}149$/);
    expect(end.json).toMatchObject({ ResponseCode: '1001', Response: [[]] });
  });

  it('fails a pull inside HTTP 200 (ResponseCode 1001, no transaction list) under the pullFailure fault', async () => {
    const t = await token();
    await registerC2b(t);
    await pullRegister(t);
    await pay(t, 50, 'ACC-1');
    await call(sim, 'PUT', '/_sim/books/faults', { body: { pullFailure: 1 } });

    const failed = await pullQuery(t);
    const next = await pullQuery(t);

    expect(failed.status).toBe(200);
    expect(failed.json.ResponseCode).toBe('1001');
    expect(failed.json.Response).toBeUndefined();
    expect(next.json.ResponseCode).toBe('1000');
  });

  it('refuses a query for a short code never registered for pulls', async () => {
    const t = await token();
    const r = await pullQuery(t);
    expect(r.status).toBe(400);
  });
});

describe('the 48-hour look-back', () => {
  // Provider time runs a million times faster: 48 h of it is about 173 ms of real time.
  beforeEach(() => open({ timeScale: 1e-6 }));

  it('stops serving a payment once it is older than 48 hours of provider time', async () => {
    const t = await token();
    await registerC2b(t);
    await pullRegister(t);
    await pay(t, 75, 'ACC-OLD');

    const answer = await eventually(async () => {
      const r = await pullQuery(t, 0, Date.now() - 86_400_000);
      if (r.json.ResponseCode !== '1001') throw new Error('still served');
      return r;
    });

    expect(answer.json.Response).toEqual([[]]);
    expect((await call(sim, 'GET', `/_sim/books/daraja/${SHORT_CODE}`)).json.entries).toHaveLength(1);
  });
});

describe('statements and faults on what is served', () => {
  beforeEach(() => open());

  it('exports the merchant layout with a linked charge row per payment under the fee fault', async () => {
    const t = await token();
    await registerC2b(t);
    await call(sim, 'PUT', '/_sim/books/faults', { body: { feePercent: 1 } });
    const paid = await pay(t, 200, 'ACC-FEE');

    const r = await call(sim, 'GET', `/_sim/statements/daraja/${SHORT_CODE}?layout=mpesa-merchant`);

    expect(r.status).toBe(200);
    expect(r.headers.get('content-disposition')).toMatch(new RegExp(`Mpesa_${SHORT_CODE}_\\d{14}\\.csv`));
    const [header, payment, fee] = r.text.trim().split('\r\n');
    expect(header).toBe(MPESA_MERCHANT_HEADER.join(','));
    const receipt = payment!.split(',')[1]!;
    expect(payment!.split(',')[6]).toBe('200.00');
    expect(fee!.split(',')).toEqual(expect.arrayContaining(['Pay merchant Charge', '2.00', receipt]));
    // The charge left the balance the Account Balance API reports too: 50,000 + 200 - 2.
    expect(fee!.split(',')[8]).toBe('50198.00');
    expect(paid.SimulatorOutcome.completed).toBe(true);
  });

  it('exports the older paybill layout with the receipt, Paid In and the running balance', async () => {
    const t = await token();
    await registerC2b(t);
    await pay(t, 120, 'ACC-9');

    const r = await call(sim, 'GET', `/_sim/statements/daraja/${SHORT_CODE}?layout=mpesa-paybill`);

    const [header, row] = r.text.trim().split('\r\n');
    expect(header).toBe(MPESA_PAYBILL_HEADER.join(','));
    const cells = row!.split(',');
    expect(cells[3]).toBe('Completed');
    expect(cells[4]).toBe('120.00');
    expect(cells[6]).toBe('50120.00');
  });

  it('leaves out, duplicates and posts past midnight the Nth rows it serves, never the money moved', async () => {
    const t = await token();
    await registerC2b(t);
    for (let i = 1; i <= 6; i++) await pay(t, 10 * i, `ACC-${i}`);
    await call(sim, 'PUT', '/_sim/books/faults', {
      body: { missingEvery: 3, duplicateEvery: 4, lateEvery: 5 },
    });

    const books = (await call(sim, 'GET', `/_sim/books/daraja/${SHORT_CODE}`)).json;

    const ids = books.entries.map((e: { id: string }) => e.id);
    const served = books.served as { id: string; fault?: string; time: number }[];
    expect(books.entries).toHaveLength(6);
    expect(served.map((e) => e.id)).not.toContain(ids[2]);
    expect(served.map((e) => e.id)).not.toContain(ids[5]);
    expect(served.filter((e) => e.id === ids[3])).toHaveLength(2);
    const late = served.find((e) => e.id === ids[4])!;
    expect(late.fault).toBe('late');
    // Past the next midnight in Nairobi (UTC+3).
    const local = new Date(late.time + 3 * 3600_000);
    expect(local.getUTCHours() * 60 + local.getUTCMinutes()).toBeLessThan(5);
  });

  it('refuses an unknown layout with a 400 naming the layouts', async () => {
    const r = await call(sim, 'GET', `/_sim/statements/daraja/${SHORT_CODE}?layout=excel`);
    expect(r.status).toBe(400);
    expect(r.json.message).toContain('mpesa-merchant');
  });
});
