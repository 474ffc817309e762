import { randomUUID } from 'node:crypto';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Simulator } from '../../simulator/server';
import { call, parse, type Receiver, startReceiver, startSim } from './helpers';
import { create, momoHeaders, momoToken } from './momo-helpers';

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

/** Seed 000, Sandbox: "Refund: 1 NotFound, 2 Failed, … 13 CouldNotPerformTransaction", row by row. */
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

/** Seed 000, Sandbox: "Cash transfer: 1 NotFound, 2 Failed, … 13 CouldNotPerformTransaction", row by row. */
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
  describe(`MoMo ${op.name}: transaction reference triggers (seed 000)`, () => {
    let token: string;
    beforeEach(async () => {
      token = await momoToken(sim, 'disbursement');
    });

    it('answers 202, sends one PUT callback SUCCESSFUL and GET returns it, for a non-trigger reference', async () => {
      const path = `/cb/${slug(op.name)}/ok`;
      const { ref, res } = await create(sim, token, op.path, op.body('order-77'), {
        product: 'disbursement',
        callbackUrl: `${rx.url}${path}`,
      });
      expect(res.status).toBe(202);
      expect(res.text).toBe('');
      const pending = await call(sim, 'GET', `${op.status}/${ref}`, {
        headers: momoHeaders(token, 'disbursement'),
      });
      expect(pending.json).toMatchObject({
        status: 'PENDING',
        externalId: 'order-77',
        amount: op.body('').amount,
      });
      const [cb] = await rx.waitFor(1, (r) => r.path === path);
      expect(cb!.method).toBe('PUT');
      const body = parse(cb!);
      expect(body).toMatchObject({ status: 'SUCCESSFUL', externalId: 'order-77' });
      expect(body.financialTransactionId).toEqual(expect.any(String));
      expect(body).not.toHaveProperty('reason');
      const get = await call(sim, 'GET', `${op.status}/${ref}`, {
        headers: momoHeaders(token, 'disbursement'),
      });
      expect(get.status).toBe(200);
      expect(get.json).toEqual(body);
      await sim.whenIdle();
      expect(rx.requests.filter((r) => r.path === path)).toHaveLength(1);
    });

    for (const [value, name, expected] of op.rows) {
      const what =
        'sync' in expected
          ? `answers ${expected.sync.status} ${expected.sync.code}`
          : `ends FAILED ${expected.reason}`;
      it(`reference ${value} (${name}) ${what}`, async () => {
        const path = `/cb/${slug(op.name)}/${value}`;
        const { ref, res } = await create(sim, token, op.path, op.body(String(value)), {
          product: 'disbursement',
          callbackUrl: `${rx.url}${path}`,
        });
        if ('sync' in expected) {
          expect(res.status).toBe(expected.sync.status);
          expect(res.json.code).toBe(expected.sync.code);
          const get = await call(sim, 'GET', `${op.status}/${ref}`, {
            headers: momoHeaders(token, 'disbursement'),
          });
          expect(get.status).toBe(404);
          await sim.whenIdle();
          expect(rx.requests).toHaveLength(0);
          return;
        }
        expect(res.status).toBe(202);
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
        const get = await call(sim, 'GET', `${op.status}/${ref}`, {
          headers: momoHeaders(token, 'disbursement'),
        });
        expect(get.json).toEqual(body);
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
