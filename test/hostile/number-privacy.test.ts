/**
 * Phone numbers over HTTP, as an outsider with the management token sees them (issue 27, item 4): the
 * transaction read, a receipt's body and the quarantine never answer a full number; search finds a
 * number in any common spelling through its keyed hash, never a customer who only shares its mask, and
 * never confirms a number that only a provider attribute holds. Real local relay on DynamoDB Local.
 */
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MASKED_HASHED_MSISDN } from '../../shared/util/mask';
import {
  airtelHash,
  b2cResultBody,
  c2bBody,
  momoSuccessBody,
  type RawResponse,
  rawRequest,
  SAFARICOM_IP,
  startHostileRelay,
  stkBody,
  uuid,
} from '../helpers/hostile';
import { ADMIN_HEADERS, ADMIN_TOKEN, TEST_SEARCH_KEY, type TestRelay } from '../helpers/relay';

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
  if (options.admin) headers.push(...Object.entries(ADMIN_HEADERS));
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

  it('reads a national-format public name ("0708374149 - John Doe") as the international party, masked in every view', async () => {
    // Prepare
    const ocid = `10572-${uuid().slice(0, 8)}-1`;
    const registered = await admin('POST', '/v1/transactions', {
      provider: 'daraja',
      account: 'open',
      kind: 'b2c',
      reference: ocid,
      amount: '10',
      currency: 'KES',
    });
    expect(registered.status, registered.text).toBe(201);
    const result = b2cResultBody(ocid, [
      { Key: 'TransactionAmount', Value: 10 },
      { Key: 'TransactionReceipt', Value: 'NLJ41HAY7Q' },
      { Key: 'ReceiverPartyPublicName', Value: '0708374149 - John Doe' },
    ]);
    const posted = await call('POST', '/v1/daraja/open/b2c/result', result, { from: SAFARICOM_IP });
    expect(posted.status, posted.text).toBe(200);

    // Act
    const read = await admin('GET', `/v1/transactions/daraja/open/${ocid}`);
    const listed = await admin('GET', '/v1/transactions?provider=daraja');
    const events = (await relay.flush()).filter((e) => JSON.stringify(e).includes(ocid));

    // Assess: one number, international; masked in the views; whole only as the event's party (events.md).
    expect(read.json.transaction).toMatchObject({
      party: { idType: 'MSISDN', id: '2547*****149' },
      attributes: { ReceiverPartyPublicName: '2547*****149 - John Doe' },
    });
    expect(read.text).not.toContain(TAIL);
    expect(listed.text).not.toContain(TAIL);
    const succeeded = events.find((e) => e.metadata.type === 'TransactionSucceeded');
    expect((succeeded?.data as { party?: unknown }).party).toEqual({ idType: 'MSISDN', id: NUMBER });
    expect(JSON.stringify(events)).not.toContain('0708374149');
  });
});

describe('a hashed number (Daraja C2B since 2025 sends MSISDN as the SHA-256 hex of the number)', () => {
  it('shows no piece of the hash in the read, its receipts or the C2BValidationDecided event', async () => {
    // Prepare: a validation and a confirmation carrying the hashed number, from Safaricom's address.
    const hashed = createHash('sha256').update(NUMBER).digest('hex');
    const transId = `RK${uuid().replace(/-/g, '').slice(0, 8).toUpperCase()}`;
    const body = c2bBody(transId, { MSISDN: hashed });
    const validated = await call('POST', '/v1/daraja/open/c2b/validation', body, { from: SAFARICOM_IP });
    const confirmed = await call('POST', '/v1/daraja/open/c2b/confirmation', body, { from: SAFARICOM_IP });
    expect(validated.status, validated.text).toBe(200);
    expect(confirmed.status, confirmed.text).toBe(200);

    // Act
    const events = await relay.flush();
    const read = await admin('GET', `/v1/transactions/daraja/open/${transId}`);
    const receipts = await receiptBodies('daraja', 'open', transId);

    // Assess: neither the hash nor a 'number' made of its digits (4392****…888) is shown.
    const decided = events.find(
      (e) => e.metadata.type === 'C2BValidationDecided' && JSON.stringify(e.data).includes(transId),
    );
    expect((decided?.data as { msisdn: string }).msisdn).toBe(MASKED_HASHED_MSISDN);
    // A hash is no number to call (test/unit/app/daraja-hashed-msisdn.test.ts): it names the party, masked.
    expect(read.json.transaction.msisdn).toBeNull();
    expect(read.json.transaction.party).toEqual({ idType: 'MSISDN_SHA256', id: MASKED_HASHED_MSISDN });
    expect(receipts.length).toBeGreaterThan(0);
    expect(receipts.map((r) => r.json.receipt.body).join()).toContain(`"MSISDN":"${MASKED_HASHED_MSISDN}"`);
    const hashDigits = hashed.replace(/\D/g, '');
    for (const text of [read.text, ...receipts.map((r) => r.text), JSON.stringify(decided)]) {
      expect(text).not.toContain(hashed.slice(0, 16));
      expect(text).not.toContain(hashed.slice(-16));
      expect(text).not.toContain(hashDigits.slice(-6));
    }
  });
});

/** The ids of the receipts a transaction read names anywhere (history, timeline, reversals), each once. */
function receiptIdsOf(read: RawResponse): string[] {
  return [...new Set([...read.text.matchAll(/"receiptId":"([0-9a-f]{32})"/g)].map((m) => m[1]!))];
}

/** Every receipt body of a transaction, as the console's receipt view answers it. */
async function receiptBodies(provider: string, account: string, reference: string): Promise<RawResponse[]> {
  const read = await admin('GET', `/v1/transactions/${provider}/${account}/${reference}`);
  expect(read.status, read.text).toBe(200);
  return Promise.all(
    receiptIdsOf(read).map((id) =>
      admin('GET', `/v1/transactions/${provider}/${account}/${reference}/receipts/${id}`),
    ),
  );
}

describe('numbers in the members the providers fill with names and free text', () => {
  /** Daraja's Reversal documentation: the customer is "<number> - <name>" in one of the two party names. */
  function reversalResult(parameters: { Key: string; Value?: unknown }[]) {
    return {
      Result: {
        ResultType: 0,
        ResultCode: 0,
        ResultDesc: 'The service request is processed successfully.',
        OriginatorConversationID: `8521-${uuid().slice(0, 8)}-1`,
        ConversationID: CONVERSATION_ID,
        TransactionID: 'MJ561H6X5O',
        ResultParameters: { ResultParameter: parameters },
        ReferenceData: { ReferenceItem: { Key: 'QueueTimeoutURL', Value: 'https://example.com/timeout' } },
      },
    };
  }
  const partyNames = [
    { Key: 'CreditPartyPublicName', Value: `${NUMBER} - John Doe` },
    { Key: 'DebitPartyPublicName', Value: `${NUMBER} - John Doe` },
  ];

  it("masks the customer's number in a Daraja reversal result's party names, in its receipt and in the quarantine", async () => {
    // Prepare: a paid STK push with a receipt of its own, then Daraja's reversal of it.
    const reference = `ws_CO_${uuid().replace(/-/g, '')}`;
    const receipt = `RV${uuid().replace(/-/g, '').slice(0, 8).toUpperCase()}`;
    await registerStk(reference);
    const paid = await call(
      'POST',
      '/v1/daraja/open/stk',
      JSON.parse(JSON.stringify(stkBody(reference)).replace('NLJ7RT61SV', receipt)),
      { from: SAFARICOM_IP },
    );
    expect(paid.status, paid.text).toBe(200);
    const reversal = reversalResult([
      { Key: 'DebitAccountBalance', Value: 'Utility Account|KES|51661.00|51661.00|0.00|0.00' },
      { Key: 'Amount', Value: 1 },
      { Key: 'TransCompletedTime', Value: 20181005153225 },
      { Key: 'OriginalTransactionID', Value: receipt },
      { Key: 'Charge', Value: 0 },
      ...partyNames,
    ]);
    // Daraja's words may name the customer too: the evidence the reversal rests on keeps them.
    reversal.Result.ResultDesc = `Reversal of ${receipt} for ${NUMBER} processed successfully.`;
    const applied = await call('POST', '/v1/daraja/open/reversal/result', reversal, { from: SAFARICOM_IP });
    // A success without OriginalTransactionID is refused (400) and quarantined, party names and all.
    const refused = await call(
      'POST',
      '/v1/daraja/open/reversal/result',
      reversalResult([{ Key: 'Amount', Value: 1 }, ...partyNames]),
      { from: SAFARICOM_IP },
    );
    expect(applied.status, applied.text).toBe(200);
    expect(refused.status, refused.text).toBe(400);

    // The reversal is kept on the payment once its fact is recorded: wait for the read to show it.
    await expect
      .poll(
        async () =>
          (await admin('GET', `/v1/transactions/daraja/open/${reference}`)).json.transaction.reversal,
        // A bound on a hang, not a speed check: DynamoDB Local on two loaded cores is slow.
        { timeout: 60_000 },
      )
      .not.toBeNull();

    // Act
    const receipts = await receiptBodies('daraja', 'open', reference);
    const quarantined = await admin('GET', `/v1/quarantine?source=${SAFARICOM_IP}&limit=200`);
    const read = await admin('GET', `/v1/transactions/daraja/open/${reference}`);

    // Assess: the payment's read (its reversals and their history entries) shows the words, masked.
    expect(read.text).toContain('2547*****149 processed successfully');
    expect(read.text).not.toContain(TAIL);
    const reversalReceipt = receipts.find((r) => r.text.includes('CreditPartyPublicName'));
    expect(reversalReceipt?.json.receipt.body).toContain('2547*****149 - John Doe');
    for (const receipt of receipts) expect(receipt.text).not.toContain(TAIL);
    expect(quarantined.status, quarantined.text).toBe(200);
    expect(quarantined.text).toContain('DebitPartyPublicName');
    expect(quarantined.text).not.toContain(TAIL);
  });

  it('masks numbers in the free text of an Airtel message and of MoMo payer and payee notes in their receipts', async () => {
    // Prepare: a signed Airtel success whose message names the payer, a MoMo success whose notes do.
    const airtelId = `AT-${uuid().slice(0, 8)}`;
    const transaction = {
      id: airtelId,
      message: `Transaction of UGX 5000 from ${NUMBER} successful`,
      status_code: 'TS',
      airtel_money_id: 'MP210603.1234.A00001',
    };
    const airtel = await call('POST', '/v1/airtel/demo/callback', {
      transaction,
      hash: airtelHash(transaction),
    });
    const momoRef = uuid();
    const momo = await call(
      'PUT',
      `/v1/momo/open/requesttopay/${momoRef}`,
      momoSuccessBody({ payerMessage: `Refund to ${NUMBER}`, payeeNote: 'call 0708 374 149' }),
    );
    expect(airtel.status, airtel.text).toBe(200);
    expect(momo.status, momo.text).toBe(200);

    // Act
    const airtelReceipts = await receiptBodies('airtel', 'demo', airtelId);
    const momoReceipts = await receiptBodies('momo', 'open', momoRef);

    // Assess: the numbers are masked, the ids and amounts beside them are not.
    expect(airtelReceipts.map((r) => r.json.receipt.body).join()).toContain(
      'Transaction of UGX 5000 from 2547*****149 successful',
    );
    expect(airtelReceipts.map((r) => r.json.receipt.body).join()).toContain('MP210603.1234.A00001');
    expect(momoReceipts.map((r) => r.json.receipt.body).join()).toContain('Refund to 2547*****149');
    expect(momoReceipts.map((r) => r.json.receipt.body).join()).toContain(
      '"financialTransactionId":"363440463"',
    );
    for (const receipt of [...airtelReceipts, ...momoReceipts]) {
      expect(receipt.status, receipt.text).toBe(200);
      expect(receipt.text).not.toContain(TAIL);
      expect(receipt.text).not.toContain('374 149');
    }
  });
});

describe('the list, the search and the live stream', () => {
  /** Airtel's words on a failure, naming the payer's national number. */
  const AIRTEL_NUMBER = '0752123904';
  const AIRTEL_DIGITS = '752123904';

  /** The console's live stream, and the text read from it so far. */
  async function openStream() {
    const abort = new AbortController();
    const response = await fetch(`${relay.url}/v1/events/stream`, {
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, accept: 'text/event-stream' },
      signal: abort.signal,
    });
    const stream = { response, text: '', close: () => abort.abort() };
    if (response.ok)
      void (async () => {
        try {
          for await (const chunk of response.body!.pipeThrough(new TextDecoderStream())) stream.text += chunk;
        } catch {
          // aborted at the end
        }
      })();
    return stream;
  }

  it("masks the number in an Airtel failure's message in the list, the search and the stream", async () => {
    // Prepare: the stream open before a signed Airtel TF callback whose message names the payer.
    const stream = await openStream();
    const airtelId = `AT-${uuid().slice(0, 8)}`;
    const transaction = {
      id: airtelId,
      message: `insufficient balance for ${AIRTEL_NUMBER}`,
      status_code: 'TF',
      airtel_money_id: 'MP210603.1234.A00002',
    };
    const posted = await call('POST', '/v1/airtel/demo/callback', {
      transaction,
      hash: airtelHash(transaction),
    });
    expect(posted.status, posted.text).toBe(200);

    // Act: the stream shows the change once the relay's change feed has read it.
    const shown = new RegExp(`"reference":"${airtelId}"[^\n]*"status":"FAILED"`);
    const deadline = Date.now() + 60_000;
    while (!shown.test(stream.text) && Date.now() < deadline) await relay.flush();
    stream.close();
    const listed = await admin('GET', '/v1/transactions?provider=airtel&limit=200');
    const searched = await admin('GET', `/v1/transactions/search?q=${airtelId}`);

    // Assess
    expect(stream.text).toMatch(shown);
    expect(listed.status, listed.text).toBe(200);
    expect(searched.status, searched.text).toBe(200);
    const summaries = [
      listed.json.transactions.find((t: { reference: string }) => t.reference === airtelId),
      searched.json.transactions.find((t: { reference: string }) => t.reference === airtelId),
    ];
    for (const summary of summaries)
      expect(summary?.reason).toMatchObject({ message: 'insufficient balance for 075****904' });
    for (const text of [stream.text, listed.text, searched.text]) expect(text).not.toContain(AIRTEL_DIGITS);
  });
});

describe('the reconciliation report', () => {
  it("masks the number in the provider's words of an unknown Daraja code, held AMBIGUOUS, in the report's lines", async () => {
    // Prepare: an STK result with a code no table lists (AMBIGUOUS/UNKNOWN), whose words name the payer.
    const reference = `ws_CO_${uuid().replace(/-/g, '')}`;
    await registerStk(reference);
    const body = stkBody(reference, { resultCode: 4242 });
    body.Body.stkCallback.ResultDesc = `No answer from ${NUMBER}`;
    const posted = await call('POST', '/v1/daraja/open/stk', body, { from: SAFARICOM_IP });
    expect(posted.status, posted.text).toBe(200);

    // Act
    const report = await admin('GET', '/v1/reconciliation/report');

    // Assess
    expect(report.status, report.text).toBe(200);
    const ambiguous = report.json.act.ambiguous.find((l: { reference: string }) => l.reference === reference);
    expect(ambiguous?.detail).toBe('UNKNOWN: No answer from 2547*****149');
    expect(report.text).not.toContain(TAIL);
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
