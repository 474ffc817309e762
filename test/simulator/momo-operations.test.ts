import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../simulator/server';
import { call, parse, type Receiver, startHeldSim, startReceiver, startSim } from './helpers';
import { DEFAULTS } from '../../simulator/options';
import { create, momoHeaders, momoToken, msisdn, rtpBody } from './momo-helpers';

let sim: Simulator;
let rx: Receiver;

beforeEach(async () => {
  sim = await startSim();
  rx = await startReceiver();
});
afterEach(async () => {
  await sim.close();
  await rx.close();
});

const slug = (s: string) => s.replace(/[^a-z0-9]+/gi, '-');

type Expected = { sync: { status: number; code: string } } | { reason: string; format: 'string' | 'object' };

const fail = (reason: string, format: 'string' | 'object'): Expected => ({ reason, format });
const sync = (code: string): Expected => ({ sync: { status: 500, code } });

/** MoMo Open API docs, sandbox test numbers: "Refund: 1 NotFound, 2 Failed, … 13 CouldNotPerformTransaction", row by row. */
const REFUND_ROWS: [number, string, Expected][] = [
  [1, 'NotFound', fail('TRANSACTION_NOT_FOUND', 'object')],
  [2, 'Failed', fail('INTERNAL_PROCESSING_ERROR', 'string')],
  [3, 'Rejected', fail('APPROVAL_REJECTED', 'object')],
  [4, 'Expired', fail('EXPIRED', 'string')],
  [5, 'Ongoing', fail('COULD_NOT_PERFORM_TRANSACTION', 'object')],
  [6, 'Delayed', fail('COULD_NOT_PERFORM_TRANSACTION', 'string')],
  [7, 'NotAllowed', fail('NOT_ALLOWED', 'string')],
  [8, 'NotAllowedTargetEnvironment', sync('NOT_ALLOWED_TARGET_ENVIRONMENT')],
  [9, 'InvalidCallbackUrlHost', sync('INVALID_CALLBACK_URL_HOST')],
  [10, 'InvalidCurrency', sync('INVALID_CURRENCY')],
  [11, 'InternalProcessingError', fail('INTERNAL_PROCESSING_ERROR', 'object')],
  [12, 'ServiceUnavailable', fail('SERVICE_UNAVAILABLE', 'string')],
  [13, 'CouldNotPerformTransaction', fail('COULD_NOT_PERFORM_TRANSACTION', 'object')],
];

/** MoMo Open API docs, sandbox test numbers: "Cash transfer: 1 NotFound, 2 Failed, … 13 CouldNotPerformTransaction", row by row. */
const CASH_TRANSFER_ROWS: [number, string, Expected][] = [
  [1, 'NotFound', fail('PAYER_NOT_FOUND', 'string')],
  [2, 'Failed', fail('INTERNAL_PROCESSING_ERROR', 'string')],
  [3, 'Rejected', fail('APPROVAL_REJECTED', 'object')],
  [4, 'Expired', fail('EXPIRED', 'string')],
  [5, 'PayeeNotFound', fail('PAYEE_NOT_FOUND', 'object')],
  [6, 'PayeeNotAllowedToReceive', fail('PAYEE_NOT_ALLOWED_TO_RECEIVE', 'object')],
  [7, 'NotAllowed', fail('NOT_ALLOWED', 'string')],
  [8, 'NotAllowedTargetEnvironment', sync('NOT_ALLOWED_TARGET_ENVIRONMENT')],
  [9, 'InvalidCallbackUrlHost', sync('INVALID_CALLBACK_URL_HOST')],
  [10, 'InvalidCurrency', sync('INVALID_CURRENCY')],
  [11, 'InternalProcessingError', fail('INTERNAL_PROCESSING_ERROR', 'object')],
  [12, 'ServiceUnavailable', fail('SERVICE_UNAVAILABLE', 'string')],
  [13, 'CouldNotPerformTransaction', fail('COULD_NOT_PERFORM_TRANSACTION', 'object')],
];

const refundBody = (externalId: string, extra: Record<string, unknown> = {}) => ({
  amount: '40',
  currency: 'EUR',
  externalId,
  payerMessage: 'Refund',
  payeeNote: 'Refund of order 1',
  referenceIdToRefund: randomUUID(),
  ...extra,
});

const cashTransferBody = (externalId: string, extra: Record<string, unknown> = {}) => ({
  amount: '75',
  currency: 'EUR',
  payee: { partyIdType: 'MSISDN', partyId: '46700000001' },
  externalId,
  orginatingCountry: 'SE',
  originalAmount: '75',
  originalCurrency: 'EUR',
  payerMessage: 'Cash',
  payeeNote: 'Cash out',
  payerFirstName: 'Ann',
  payerSurName: 'Smith',
  ...extra,
});

const OPERATIONS = [
  {
    name: 'refund (V1)',
    path: '/disbursement/v1_0/refund',
    status: '/disbursement/v1_0/refund',
    body: refundBody,
    rows: REFUND_ROWS,
  },
  {
    name: 'refund (V2)',
    path: '/disbursement/v2_0/refund',
    status: '/disbursement/v1_0/refund',
    body: refundBody,
    rows: REFUND_ROWS,
  },
  {
    name: 'cash transfer',
    path: '/disbursement/v2_0/cashtransfer',
    status: '/disbursement/v2_0/cashtransfer',
    body: cashTransferBody,
    rows: CASH_TRANSFER_ROWS,
  },
];

for (const op of OPERATIONS) {
  describe(`MoMo ${op.name}: transaction reference triggers (MoMo Open API docs)`, () => {
    let token: string;
    beforeEach(async () => {
      token = await momoToken(sim, 'disbursement');
    });

    it('answers 202, sends one PUT callback SUCCESSFUL and GET returns it, for a non-trigger reference', async () => {
      // The payer answers when the test moves the simulator's clock, so PENDING is seen however slow the machine.
      const { sim: held, clock } = await startHeldSim();
      try {
        const heldToken = await momoToken(held, 'disbursement');
        const path = `/cb/${slug(op.name)}/ok`;
        const { ref, res } = await create(held, heldToken, op.path, op.body('order-77'), {
          product: 'disbursement',
          callbackUrl: `${rx.url}${path}`,
        });
        expect(res.status).toBe(202);
        expect(res.text).toBe('');
        const pending = await call(held, 'GET', `${op.status}/${ref}`, {
          headers: momoHeaders(heldToken, 'disbursement'),
        });
        expect(pending.json).toMatchObject({
          status: 'PENDING',
          externalId: 'order-77',
          amount: op.body('').amount,
        });
        await clock.advance(held.options.approvalDelayMs);
        const [cb] = await rx.waitFor(1, (r) => r.path === path);
        expect(cb!.method).toBe('PUT');
        const body = parse(cb!);
        expect(body).toMatchObject({ status: 'SUCCESSFUL', externalId: 'order-77' });
        expect(body.financialTransactionId).toEqual(expect.any(String));
        expect(body).not.toHaveProperty('reason');
        const get = await call(held, 'GET', `${op.status}/${ref}`, {
          headers: momoHeaders(heldToken, 'disbursement'),
        });
        expect(get.status).toBe(200);
        expect(get.json).toEqual(body);
        await held.whenIdle();
        expect(rx.requests.filter((r) => r.path === path)).toHaveLength(1);
      } finally {
        await held.close();
      }
    });

    for (const [value, name, expected] of op.rows) {
      const what =
        'sync' in expected
          ? `answers ${expected.sync.status} ${expected.sync.code}`
          : `ends FAILED ${expected.reason}`;
      it(`reference ${value} (${name}) ${what}`, async () => {
        // On a held clock, moved past the payer's answer and the approval window (Ongoing and Delayed end then).
        const { sim: held, clock } = await startHeldSim();
        try {
          const heldToken = await momoToken(held, 'disbursement');
          const path = `/cb/${slug(op.name)}/${value}`;
          const { ref, res } = await create(held, heldToken, op.path, op.body(String(value)), {
            product: 'disbursement',
            callbackUrl: `${rx.url}${path}`,
          });
          if ('sync' in expected) {
            expect(res.status).toBe(expected.sync.status);
            expect(res.json.code).toBe(expected.sync.code);
            const get = await call(held, 'GET', `${op.status}/${ref}`, {
              headers: momoHeaders(heldToken, 'disbursement'),
            });
            expect(get.status).toBe(404);
            await held.whenIdle();
            expect(rx.requests).toHaveLength(0);
            return;
          }
          expect(res.status).toBe(202);
          await clock.advance(
            held.options.approvalDelayMs + DEFAULTS.momo.approvalWindowMs * held.options.timeScale,
          );
          const [cb] = await rx.waitFor(1, (r) => r.path === path);
          expect(cb!.method).toBe('PUT');
          const body = parse(cb!);
          expect(body.status).toBe('FAILED');
          expect(body).not.toHaveProperty('financialTransactionId');
          expect(body.reason).toEqual(
            expected.format === 'string'
              ? expected.reason
              : { code: expected.reason, message: expect.any(String) },
          );
          const get = await call(held, 'GET', `${op.status}/${ref}`, {
            headers: momoHeaders(heldToken, 'disbursement'),
          });
          expect(get.json).toEqual(body);
        } finally {
          await held.close();
        }
      });
    }

    it('does not trigger on values outside 1–13 or not written as a plain number', async () => {
      for (const externalId of ['0', '14', '07', ' 7']) {
        const { ref, res } = await create(sim, token, op.path, op.body(externalId), {
          product: 'disbursement',
        });
        expect(res.status).toBe(202);
        await sim.whenIdle();
        const get = await call(sim, 'GET', `${op.status}/${ref}`, {
          headers: momoHeaders(token, 'disbursement'),
        });
        expect(get.json.status).toBe('SUCCESSFUL');
      }
    });

    it('validates like the other creating operations: 400 on a bad reference or body, 409 on reuse', async () => {
      const bad = await create(sim, token, op.path, op.body('x'), {
        product: 'disbursement',
        ref: 'not-a-uuid',
      });
      expect(bad.res.status).toBe(400);
      const noAmount = await create(sim, token, op.path, op.body('x', { amount: '-1' }), {
        product: 'disbursement',
      });
      expect(noAmount.res.status).toBe(400);
      const first = await create(sim, token, op.path, op.body('x'), { product: 'disbursement' });
      expect(first.res.status).toBe(202);
      const again = await create(sim, token, op.path, op.body('x'), {
        product: 'disbursement',
        ref: first.ref,
      });
      expect(again.res.status).toBe(409);
      expect(again.res.json.code).toBe('RESOURCE_ALREADY_EXIST');
      const unknown = await call(sim, 'GET', `${op.status}/${randomUUID()}`, {
        headers: momoHeaders(token, 'disbursement'),
      });
      expect(unknown.status).toBe(404);
    });
  });
}

describe('MoMo refund body', () => {
  it('requires referenceIdToRefund as a UUID v4', async () => {
    const token = await momoToken(sim, 'disbursement');
    const { res } = await create(
      sim,
      token,
      '/disbursement/v1_0/refund',
      refundBody('x', { referenceIdToRefund: 'abc' }),
      {
        product: 'disbursement',
      },
    );
    expect(res.status).toBe(400);
  });

  it('is a disbursement operation: a collection token is refused', async () => {
    const token = await momoToken(sim, 'collection');
    const { res } = await create(sim, token, '/disbursement/v1_0/refund', refundBody('x'), {
      product: 'disbursement',
    });
    expect(res.status).toBe(401);
  });
});

describe('MoMo request-to-pay delivery notification (MoMo Open API docs)', () => {
  const notify = (token: string, ref: string, headers: Record<string, string> = {}, body?: unknown) =>
    call(sim, 'POST', `/collection/v1_0/requesttopay/${ref}/deliverynotification`, {
      headers: momoHeaders(token, 'collection', headers),
      body,
    });

  async function paid(s: Simulator, token: string, payer = '46700000001') {
    const { ref } = await create(s, token, '/collection/v1_0/requesttopay', rtpBody(payer));
    await s.whenIdle();
    return ref;
  }

  it('answers 200 for a successful request to pay, with the header and the same text in the body', async () => {
    const token = await momoToken(sim);
    const ref = await paid(sim, token);
    const r = await notify(
      token,
      ref,
      { notificationMessage: 'Your order ships today', Language: 'en' },
      {
        notificationMessage: 'Your order ships today',
      },
    );
    expect(r.status).toBe(200);
  });

  it('takes exactly 160 characters and answers 400 for 161 (header or body)', async () => {
    const token = await momoToken(sim);
    const ok = await notify(token, await paid(sim, token), { notificationMessage: 'a'.repeat(160) });
    expect(ok.status).toBe(200);
    const ref = await paid(sim, token);
    const long = await notify(token, ref, { notificationMessage: 'a'.repeat(161) });
    expect(long.status).toBe(400);
    expect(long.json.code).toBe('BAD_REQUEST');
    const longBody = await notify(
      token,
      ref,
      { notificationMessage: 'short' },
      { notificationMessage: 'b'.repeat(161) },
    );
    expect(longBody.status).toBe(400);
    // Refusals are not attempts: the notification can still be sent.
    expect((await notify(token, ref, { notificationMessage: 'short' })).status).toBe(200);
  });

  it('answers 400 without the notificationMessage header, for a bad Language or a reference that is not a UUID v4', async () => {
    const token = await momoToken(sim);
    const ref = await paid(sim, token);
    expect((await notify(token, ref, {}, { notificationMessage: 'hello' })).status).toBe(400);
    expect((await notify(token, ref, { notificationMessage: 'hello', Language: 'english' })).status).toBe(
      400,
    );
    expect((await notify(token, 'not-a-uuid', { notificationMessage: 'hello' })).status).toBe(400);
  });

  it("answers 404 RESOURCE_NOT_FOUND for an unknown reference, another kind's reference or another API user's", async () => {
    const token = await momoToken(sim);
    const unknown = await notify(token, randomUUID(), { notificationMessage: 'hello' });
    expect(unknown.status).toBe(404);
    expect(unknown.json.code).toBe('RESOURCE_NOT_FOUND');
    const dt = await momoToken(sim, 'disbursement');
    const { ref } = await create(
      sim,
      dt,
      '/disbursement/v1_0/transfer',
      {
        amount: '5',
        currency: 'EUR',
        externalId: 'x',
        payee: { partyIdType: 'MSISDN', partyId: '46700000001' },
      },
      { product: 'disbursement' },
    );
    await sim.whenIdle();
    expect((await notify(token, ref, { notificationMessage: 'hello' })).status).toBe(404);
  });

  it('answers 409 TRANSACTION_NOT_COMPLETED while PENDING and after a FAILED end', async () => {
    // The payer answers when the test moves the simulator's clock, not 20 ms of wall time later.
    const { sim: held, clock } = await startHeldSim();
    try {
      const token = await momoToken(held);
      const { ref } = await create(held, token, '/collection/v1_0/requesttopay', rtpBody('46700000001'));
      const pending = await call(held, 'POST', `/collection/v1_0/requesttopay/${ref}/deliverynotification`, {
        headers: momoHeaders(token, 'collection', { notificationMessage: 'hello' }),
      });
      expect(pending.status).toBe(409);
      expect(pending.json.code).toBe('TRANSACTION_NOT_COMPLETED');
      const { ref: failed } = await create(held, token, '/collection/v1_0/requesttopay', rtpBody(msisdn(1))); // Rejected
      await clock.advance(held.options.approvalDelayMs);
      await held.whenIdle();
      expect(held.transactions('momo')).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ reference: ref, status: 'SUCCESSFUL' }),
          expect.objectContaining({ reference: failed, status: 'FAILED' }),
        ]),
      );
      const r = await call(held, 'POST', `/collection/v1_0/requesttopay/${failed}/deliverynotification`, {
        headers: momoHeaders(token, 'collection', { notificationMessage: 'hello' }),
      });
      expect(r.status).toBe(409);
    } finally {
      await held.close();
    }
  });

  it('answers 429 TOO_MANY_ATTEMPTS for an attempt after an accepted one', async () => {
    const token = await momoToken(sim);
    const ref = await paid(sim, token);
    expect((await notify(token, ref, { notificationMessage: 'one' })).status).toBe(200);
    const again = await notify(token, ref, { notificationMessage: 'two' });
    expect(again.status).toBe(429);
    expect(again.json.code).toBe('TOO_MANY_ATTEMPTS');
  });

  it('answers 410 NOTIFICATION_EXPIRED once the 24-hour window (provider time) has passed', async () => {
    // The window is counted on the simulator's clock, which moves only when the test moves it.
    const { sim: held, clock } = await startHeldSim();
    try {
      const token = await momoToken(held);
      const { ref } = await create(held, token, '/collection/v1_0/requesttopay', rtpBody('46700000001'));
      await clock.advance(held.options.approvalDelayMs);
      await held.whenIdle();
      // 24 h of provider time, and a millisecond.
      await clock.advance(24 * 3600_000 * held.options.timeScale + 1);
      const late = await momoToken(held);
      const r = await call(held, 'POST', `/collection/v1_0/requesttopay/${ref}/deliverynotification`, {
        headers: momoHeaders(late, 'collection', { notificationMessage: 'late' }),
      });
      expect(r.status).toBe(410);
      expect(r.json.code).toBe('NOTIFICATION_EXPIRED');
    } finally {
      await held.close();
    }
  });

  it('end to end: a request to pay made by the mtn-momo client, then its delivery notification (plain fetch; the client has no such call)', async () => {
    const { create: createClient, PayerType } = (await import('mtn-momo'))
      .default as typeof import('mtn-momo');
    const user = DEFAULTS.momo.apiUsers[0]!;
    const momo = createClient({ callbackHost: 'localhost', baseUrl: sim.url });
    const collections = momo.Collections({
      userId: user.id,
      userSecret: user.apiKey,
      primaryKey: DEFAULTS.momo.collectionSubscriptionKeys.primary,
    });
    const ref = await collections.requestToPay({
      amount: '100',
      currency: 'EUR',
      externalId: 'order-e2e',
      payer: { partyIdType: PayerType.MSISDN, partyId: '46733123499' },
      payerMessage: 'Order',
      payeeNote: 'Thanks',
    });
    await sim.whenIdle();
    expect((await collections.getTransaction(ref)).status).toBe('SUCCESSFUL');
    const token = await momoToken(sim);
    const r = await fetch(`${sim.url}/collection/v1_0/requesttopay/${ref}/deliverynotification`, {
      method: 'POST',
      headers: {
        ...momoHeaders(token),
        'Content-Type': 'application/json',
        notificationMessage: 'Your order is on its way',
      },
      body: JSON.stringify({ notificationMessage: 'Your order is on its way' }),
    });
    expect(r.status).toBe(200);
  });
});

describe('MoMo basic user info (MoMo Open API docs)', () => {
  const info = (
    token: string,
    type: string,
    id: string,
    product: 'collection' | 'disbursement' = 'collection',
  ) =>
    call(sim, 'GET', `/${product}/v1_0/accountholder/${type}/${encodeURIComponent(id)}/basicuserinfo`, {
      headers: momoHeaders(token, product),
    });

  it("answers the documented six fields, without consent, for each id type MTN's docs name", async () => {
    const token = await momoToken(sim);
    for (const [type, id] of [
      ['MSISDN', '46700000001'],
      ['Email', 'ann@example.org'],
      ['Alias', 'ann'],
      ['ID', '12345678'],
    ] as const) {
      const r = await info(token, type, id);
      expect(r.status).toBe(200);
      expect(Object.keys(r.json).sort()).toEqual(
        ['birthdate', 'family_name', 'gender', 'given_name', 'locale', 'status'].sort(),
      );
      expect(r.json.locale).toMatch(/^[a-z]{2,3}-[A-Z]{2}$/);
      expect(r.json.status).toBe('ACTIVE');
    }
    const d = await momoToken(sim, 'disbursement');
    expect((await info(d, 'MSISDN', '46700000001', 'disbursement')).status).toBe(200);
  });

  it('follows the account holder MSISDN family: base+0 NotFound … base+5 ServiceUnavailable', async () => {
    const token = await momoToken(sim);
    const notFound = await info(token, 'MSISDN', msisdn(0));
    expect(notFound.status).toBe(404);
    expect(notFound.json.code).toBe('RESOURCE_NOT_FOUND');
    const notActive = await info(token, 'MSISDN', msisdn(1));
    expect(notActive.status).toBe(200);
    expect(notActive.json.status).toBe('NOT_ACTIVE');
    for (const [index, status, code] of [
      [2, 500, 'NOT_ALLOWED'],
      [3, 500, 'NOT_ALLOWED_TARGET_ENVIRONMENT'],
      [4, 500, 'INTERNAL_PROCESSING_ERROR'],
      [5, 503, 'SERVICE_UNAVAILABLE'],
    ] as const) {
      const r = await info(token, 'MSISDN', msisdn(index));
      expect(r.status).toBe(status);
      expect(r.json.code).toBe(code);
    }
    expect((await info(token, 'MSISDN', msisdn(6))).json.status).toBe('ACTIVE');
  });

  it('answers 400 for an unknown id type or an id that does not fit its type, 401 {error} for a bad token', async () => {
    const token = await momoToken(sim);
    expect((await info(token, 'phone', '46700000001')).status).toBe(400);
    expect((await info(token, 'MSISDN', 'abc')).status).toBe(400);
    expect((await info(token, 'Email', 'not-an-email')).status).toBe(400);
    const bad = await info('not-a-token', 'MSISDN', '46700000001');
    expect(bad.status).toBe(401);
    expect(bad.json.error).toEqual(expect.any(String));
  });
});

describe('MoMo account holder checks by e-mail and party code (MoMo Open API docs; values are the simulator choice)', () => {
  const OUTCOMES = [
    ['notfound@sandbox.momo', '00000000-0000-4000-8000-000000000000', 200, { result: false }],
    ['notactive@sandbox.momo', '00000000-0000-4000-8000-000000000001', 200, { result: false }],
    ['notallowed@sandbox.momo', '00000000-0000-4000-8000-000000000002', 500, { code: 'NOT_ALLOWED' }],
    [
      'notallowedtargetenvironment@sandbox.momo',
      '00000000-0000-4000-8000-000000000003',
      500,
      { code: 'NOT_ALLOWED_TARGET_ENVIRONMENT' },
    ],
    [
      'internalprocessingerror@sandbox.momo',
      '00000000-0000-4000-8000-000000000004',
      500,
      { code: 'INTERNAL_PROCESSING_ERROR' },
    ],
    [
      'serviceunavailable@sandbox.momo',
      '00000000-0000-4000-8000-000000000005',
      503,
      { code: 'SERVICE_UNAVAILABLE' },
    ],
  ] as const;

  const active = (token: string, type: string, id: string) =>
    call(sim, 'GET', `/collection/v1_0/accountholder/${type}/${encodeURIComponent(id)}/active`, {
      headers: momoHeaders(token),
    });

  it('answers each outcome of the family for its e-mail and its party code; other values are active', async () => {
    const token = await momoToken(sim);
    for (const [email, partyCode, status, body] of OUTCOMES) {
      for (const [type, id] of [
        ['email', email],
        ['party_code', partyCode],
      ] as const) {
        const r = await active(token, type, id);
        expect(r.status, `${type} ${id}`).toBe(status);
        expect(r.json).toMatchObject(body);
      }
    }
    expect((await active(token, 'email', 'ann@example.org')).json).toEqual({ result: true });
    expect((await active(token, 'party_code', randomUUID())).json).toEqual({ result: true });
  });

  it('answers 400 for an id that does not fit its type or is not lower case', async () => {
    const token = await momoToken(sim);
    expect((await active(token, 'email', 'nope')).status).toBe(400);
    expect((await active(token, 'email', 'Ann@example.org')).status).toBe(400);
    expect((await active(token, 'party_code', 'not-a-uuid')).status).toBe(400);
  });

  it('basic user info by Email follows the same e-mail triggers', async () => {
    const token = await momoToken(sim);
    const get = (id: string) =>
      call(sim, 'GET', `/collection/v1_0/accountholder/Email/${encodeURIComponent(id)}/basicuserinfo`, {
        headers: momoHeaders(token),
      });
    expect((await get('notfound@sandbox.momo')).status).toBe(404);
    expect((await get('notactive@sandbox.momo')).json.status).toBe('NOT_ACTIVE');
    expect((await get('serviceunavailable@sandbox.momo')).status).toBe(503);
    expect((await get('ann@example.org')).json.status).toBe('ACTIVE');
  });
});

describe("MoMo balance outcomes (MoMo Open API docs; trigger header is the simulator's choice)", () => {
  const balance = (token: string, outcome?: string, product: 'collection' | 'disbursement' = 'collection') =>
    call(sim, 'GET', `/${product}/v1_0/account/balance`, {
      headers: momoHeaders(token, product, outcome ? { 'X-Sim-Balance-Outcome': outcome } : {}),
    });

  it('answers every documented outcome', async () => {
    const token = await momoToken(sim);
    expect((await balance(token)).json).toEqual({ availableBalance: '0', currency: 'EUR' });
    expect((await balance(token, 'Success')).status).toBe(200);
    expect((await balance(token, 'AccountNotFound')).status).toBe(404);
    expect((await balance(token, 'ZeroBalance')).json).toEqual({ availableBalance: '0', currency: 'EUR' });
    expect((await balance(token, 'NegativeBalance')).json.availableBalance).toMatch(/^-\d+$/);
    for (const [name, status, code] of [
      ['NotAllowed', 500, 'NOT_ALLOWED'],
      ['NotAllowedTargetEnvironment', 500, 'NOT_ALLOWED_TARGET_ENVIRONMENT'],
      ['InternalProcessingError', 500, 'INTERNAL_PROCESSING_ERROR'],
      ['ServiceUnavailable', 503, 'SERVICE_UNAVAILABLE'],
    ] as const) {
      const r = await balance(token, name);
      expect(r.status).toBe(status);
      expect(r.json.code).toBe(code);
    }
    expect((await balance(token, 'Bogus')).status).toBe(400);
    const d = await momoToken(sim, 'disbursement');
    expect((await balance(d, 'ZeroBalance', 'disbursement')).json.availableBalance).toBe('0');
  });
});
