/**
 * Phone numbers over HTTP, as an outsider with the management token sees them (issue 27, item 4): the
 * transaction read, a receipt's body and the quarantine never answer a full number; search finds a
 * number in any common spelling through its keyed hash, never a customer who only shares its mask, and
 * never confirms a number that only a provider attribute holds. Real local relay on DynamoDB Local.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  b2cResultBody,
  type RawResponse,
  rawRequest,
  SAFARICOM_IP,
  startHostileRelay,
  stkBody,
  uuid,
} from '../helpers/hostile';
import { ADMIN_TOKEN, TEST_SEARCH_KEY, type TestRelay } from '../helpers/relay';

/** The paying customer, and the 9 digits that identify them: never in an answer. */
const NUMBER = '254708374149';
const TAIL = '708374149';
/** A Daraja ConversationID with a 10-digit run: an id, not a phone number. */
const CONVERSATION_ID = 'AG_20180223_0000493344ae97d86f75';

let relay: TestRelay;

beforeAll(async () => {
  relay = await startHostileRelay();
});

afterAll(async () => {
  await relay?.stop();
});

async function call(
  method: string,
  path: string,
  body?: unknown,
  options: { admin?: boolean; from?: string } = {},
): Promise<RawResponse> {
  const headers: [string, string][] = [['content-type', 'application/json']];
  if (options.admin) headers.push(['authorization', `Bearer ${ADMIN_TOKEN}`]);
  if (options.from) headers.push(['x-forwarded-for', options.from]);
  return rawRequest(relay.url, {
    method,
    path,
    headers,
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
}

const admin = (method: string, path: string, body?: unknown) => call(method, path, body, { admin: true });

async function registerStk(reference: string, msisdn?: string): Promise<void> {
  const res = await admin('POST', '/v1/transactions', {
    provider: 'daraja',
    account: 'open',
    kind: 'stk',
    reference,
    amount: '1',
    currency: 'KES',
    ...(msisdn ? { msisdn } : {}),
  });
  expect(res.status, res.text).toBe(201);
  expect(res.text).not.toContain(TAIL);
}

/** An STK push paid by `phone` (Daraja's PhoneNumber item), posted from Safaricom's address. */
async function payStk(reference: string, phone = Number(NUMBER)): Promise<void> {
  const body = JSON.parse(JSON.stringify(stkBody(reference)).replace(String(Number(NUMBER)), String(phone)));
  const res = await call('POST', '/v1/daraja/open/stk', body, { from: SAFARICOM_IP });
  expect(res.status, res.text).toBe(200);
}

async function search(q: string): Promise<{ matchedBy: string | null; references: string[] }> {
  const res = await admin('GET', `/v1/transactions/search?q=${encodeURIComponent(q)}`);
  expect(res.status, res.text).toBe(200);
  return {
    matchedBy: res.json.matchedBy,
    references: res.json.transactions.map((t: { reference: string }) => t.reference),
  };
}

describe('the transaction read and its receipts', () => {
  it('answers the MSISDN, the party and PhoneNumber masked, in the read and in the receipt body', async () => {
    // Prepare
    const reference = `ws_CO_${uuid().replace(/-/g, '')}`;
    await registerStk(reference, `+${NUMBER}`);
    await payStk(reference);

    // Act
    const read = await admin('GET', `/v1/transactions/daraja/open/${reference}`);
    const receiptId = read.json.history.find((h: { type: string }) => h.type === 'callback').receiptId;
    const receipt = await admin('GET', `/v1/transactions/daraja/open/${reference}/receipts/${receiptId}`);

    // Assess
    expect(read.status, read.text).toBe(200);
    expect(read.json.transaction).toMatchObject({
      status: 'SUCCEEDED',
      msisdn: '2547*****149',
      party: { idType: 'MSISDN', id: '2547*****149' },
      attributes: { PhoneNumber: '2547*****149', MpesaReceiptNumber: 'NLJ7RT61SV' },
    });
    expect(read.text).not.toContain(TAIL);
    expect(receipt.status, receipt.text).toBe(200);
    expect(receipt.json.receipt.body).toContain('"PhoneNumber"');
    expect(receipt.json.receipt.body).toContain('NLJ7RT61SV');
    expect(receipt.text).not.toContain(TAIL);
  });

  it('masks the number of a B2C ReceiverPartyPublicName but not the ConversationID beside it', async () => {
    // Prepare
    const ocid = `10571-${uuid().slice(0, 8)}-1`;
    const registered = await admin('POST', '/v1/transactions', {
      provider: 'daraja',
      account: 'open',
      kind: 'b2c',
      reference: ocid,
      amount: '10',
      currency: 'KES',
    });
    expect(registered.status, registered.text).toBe(201);
    const result = b2cResultBody(ocid);
    result.Result.ConversationID = CONVERSATION_ID;
    const posted = await call('POST', '/v1/daraja/open/b2c/result', result, { from: SAFARICOM_IP });
    expect(posted.status, posted.text).toBe(200);

    // Act
    const read = await admin('GET', `/v1/transactions/daraja/open/${ocid}`);
    const receiptId = read.json.history.find((h: { type: string }) => h.type === 'callback').receiptId;
    const receipt = await admin('GET', `/v1/transactions/daraja/open/${ocid}/receipts/${receiptId}`);

    // Assess
    expect(read.json.transaction.attributes).toMatchObject({
      ReceiverPartyPublicName: '2547*****149 - John Doe',
      ConversationID: CONVERSATION_ID,
    });
    expect(read.text).not.toContain(TAIL);
    expect(receipt.json.receipt.body).toContain(CONVERSATION_ID);
    expect(receipt.text).not.toContain(TAIL);
  });
});

describe('the quarantine', () => {
  it('answers refused bodies with their numbers masked, whatever route they were sent to', async () => {
    // Prepare: a Daraja body from an address that is not Safaricom's, and a MoMo body on a wrong secret.
    const source = `203.0.113.${10 + Math.floor(Math.random() * 200)}`;
    const stk = stkBody(`ws_CO_${uuid().replace(/-/g, '')}`);
    const refusedStk = await call('POST', '/v1/daraja/open/stk', stk, { from: source });
    const momo = {
      financialTransactionId: '363440463',
      externalId: 'order-1',
      amount: '100',
      currency: 'EUR',
      payer: { partyIdType: 'MSISDN', partyId: NUMBER },
      status: 'SUCCESSFUL',
    };
    const refusedMomo = await call(
      'PUT',
      `/v1/momo/guarded/not-the-secret-0000/requesttopay/${uuid()}`,
      momo,
      {
        from: source,
      },
    );
    expect(refusedStk.status).toBeGreaterThanOrEqual(400);
    expect(refusedMomo.status).toBeGreaterThanOrEqual(400);

    // Act
    const listed = await admin('GET', `/v1/quarantine?source=${source}`);

    // Assess
    expect(listed.status, listed.text).toBe(200);
    const bodies: string[] = listed.json.entries.map((e: { body: string }) => e.body);
    expect(bodies.some((b) => b.includes('"PhoneNumber"'))).toBe(true);
    expect(bodies.some((b) => b.includes('"partyId":"2547*****149"'))).toBe(true);
    // The 9-digit MoMo id is no phone number.
    expect(bodies.some((b) => b.includes('"financialTransactionId":"363440463"'))).toBe(true);
    expect(listed.text).not.toContain(TAIL);
  });
});

describe('search by number', () => {
  it('finds the transaction from +254 708 374 149, 0708374149 and 0708-374-149, and not from a number sharing its mask', async () => {
    // Prepare: mine (registered in its national form) and another customer's that shares the mask.
    const mine = `ws_CO_${uuid().replace(/-/g, '')}`;
    const theirs = `ws_CO_${uuid().replace(/-/g, '')}`;
    await registerStk(mine, '0708374149');
    await registerStk(theirs, '+254 711 111 149'.replace(/ /g, ''));

    // Act
    const spellings = await Promise.all(['+254 708 374 149', '0708374149', '0708-374-149'].map(search));
    const sharingTheMask = await search('254700000149');
    const theirNumber = await search('0711111149');

    // Assess
    for (const found of spellings) {
      expect(found.matchedBy).toBe('msisdn');
      expect(found.references).toContain(mine);
      expect(found.references).not.toContain(theirs);
    }
    expect(sharingTheMask.references).not.toContain(mine);
    expect(sharingTheMask.references).not.toContain(theirs);
    expect(theirNumber.references).toContain(theirs);
    expect(theirNumber.references).not.toContain(mine);
  });

  it('does not confirm a number that only a callback’s PhoneNumber holds', async () => {
    // Prepare: a transaction registered without a number, paid by 254722000987.
    const reference = `ws_CO_${uuid().replace(/-/g, '')}`;
    await registerStk(reference);
    await payStk(reference, 254722000987);

    // Act
    const byNumber = await search('254722000987');
    const byReceipt = await search('NLJ7RT61SV');

    // Assess
    expect(byNumber.references).not.toContain(reference);
    expect(byReceipt.references).toContain(reference);
  });

  it('never answers the number it was asked for', async () => {
    // Act
    const res = await admin('GET', `/v1/transactions/search?q=${encodeURIComponent('+254 708 374 149')}`);

    // Assess
    expect(res.status).toBe(200);
    expect(res.text).not.toContain(TAIL);
    expect(res.text).not.toContain(TEST_SEARCH_KEY);
  });
});
