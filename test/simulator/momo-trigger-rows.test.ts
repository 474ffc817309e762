import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { ManualClock } from '../../simulator/core/clock';
import { DEFAULTS } from '../../simulator/options';
import type { Simulator } from '../../simulator/server';
import { call, parse, type Receiver, startHeldSim, startReceiver } from './helpers';
import { create, momoHeaders, momoToken, msisdn, type Product, transferBody } from './momo-helpers';

/**
 * MoMo Open API docs, sandbox test numbers, MSISDN triggers: one test per row of the pre-approval (12), transfer (14) and
 * account holder active (6) families, each asserted by what a client sees.
 */

let sim: Simulator;
/** The simulator's clock: the payer answers, and the approval window ends, when a row moves it. */
let clock: ManualClock;
let rx: Receiver;

beforeEach(async () => {
  ({ sim, clock } = await startHeldSim());
  rx = await startReceiver();
});
afterEach(async () => {
  await sim.close();
  await rx.close();
});

type Expected =
  | { sync: { status: number; code: string } }
  | { callback: 'SUCCESSFUL' }
  | { reason: string; form: 'string' | 'object' };

const failed = (reason: string, form: 'string' | 'object'): Expected => ({ reason, form });
const refused = (code: string): Expected => ({ sync: { status: 500, code } });

/** POSTs with a callback URL and checks the POST's answer, then the one callback (status and reason). */
async function expectRow(
  product: Product,
  path: string,
  body: unknown,
  expected: Expected,
  callbackUrl = `${rx.url}/cb`,
) {
  const token = await momoToken(sim, product);
  const { ref, res } = await create(sim, token, path, body, { product, callbackUrl });
  if ('sync' in expected) {
    expect(res.status).toBe(expected.sync.status);
    expect(res.json.code).toBe(expected.sync.code);
    const status = await call(sim, 'GET', `${path}/${ref}`, { headers: momoHeaders(token, product) });
    expect(status.status).toBe(404);
    return;
  }
  expect(res.status).toBe(202);
  // Past the payer's answer and the end of the approval window (Ongoing and Delayed fail only then).
  await clock.advance(sim.options.approvalDelayMs + DEFAULTS.momo.approvalWindowMs * sim.options.timeScale);
  const [cb] = await rx.waitFor(1, (r) => r.path === '/cb');
  const result = parse<{ status: string; reason?: unknown }>(cb!);
  expect(cb!.method).toBe('PUT');
  if ('callback' in expected) {
    expect(result.status).toBe('SUCCESSFUL');
    expect(result.reason).toBeUndefined();
    return;
  }
  expect(result.status).toBe('FAILED');
  if (expected.form === 'string') expect(result.reason).toBe(expected.reason);
  else expect(result.reason).toMatchObject({ code: expected.reason, message: expect.any(String) });
  const status = await call(sim, 'GET', `${path}/${ref}`, { headers: momoHeaders(token, product) });
  expect(status.json.status).toBe('FAILED');
}

/** MoMo Open API docs: "Pre-approval (payer MSISDN) | Failed, Rejected, Expired, …, ServiceUnavailable". */
const PRE_APPROVAL_ROWS: [number, string, Expected][] = [
  [0, 'Failed', failed('INTERNAL_PROCESSING_ERROR', 'string')],
  [1, 'Rejected', failed('APPROVAL_REJECTED', 'object')],
  [2, 'Expired', failed('EXPIRED', 'string')],
  [3, 'Ongoing', failed('COULD_NOT_PERFORM_TRANSACTION', 'object')],
  [4, 'Delayed', failed('COULD_NOT_PERFORM_TRANSACTION', 'string')],
  [5, 'NotFound', failed('PAYER_NOT_FOUND', 'string')],
  [6, 'NotAllowed', failed('NOT_ALLOWED', 'string')],
  [7, 'NotAllowedTargetEnvironment', refused('NOT_ALLOWED_TARGET_ENVIRONMENT')],
  [8, 'InvalidCallbackUrlHost', refused('INVALID_CALLBACK_URL_HOST')],
  [9, 'InvalidCurrency', refused('INVALID_CURRENCY')],
  [10, 'InternalProcessingError', failed('INTERNAL_PROCESSING_ERROR', 'object')],
  [11, 'ServiceUnavailable', failed('SERVICE_UNAVAILABLE', 'string')],
];

/** MoMo Open API docs: "Transfer (payee MSISDN) | Failed, Rejected, Expired, …, ServiceUnavailable". */
const TRANSFER_ROWS: [number, string, Expected][] = [
  [0, 'Failed', failed('INTERNAL_PROCESSING_ERROR', 'string')],
  [1, 'Rejected', failed('APPROVAL_REJECTED', 'object')],
  [2, 'Expired', failed('EXPIRED', 'string')],
  [3, 'Ongoing', failed('COULD_NOT_PERFORM_TRANSACTION', 'object')],
  [4, 'Delayed', failed('COULD_NOT_PERFORM_TRANSACTION', 'string')],
  [5, 'NotEnoughFunds', failed('NOT_ENOUGH_FUNDS', 'string')],
  [6, 'PayerLimitReached', failed('PAYER_LIMIT_REACHED', 'object')],
  [7, 'NotFound', failed('PAYEE_NOT_FOUND', 'string')],
  [8, 'NotAllowed', failed('NOT_ALLOWED', 'string')],
  [9, 'NotAllowedTargetEnvironment', refused('NOT_ALLOWED_TARGET_ENVIRONMENT')],
  [10, 'InvalidCallbackUrlHost', refused('INVALID_CALLBACK_URL_HOST')],
  [11, 'InvalidCurrency', refused('INVALID_CURRENCY')],
  [12, 'InternalProcessingError', failed('INTERNAL_PROCESSING_ERROR', 'object')],
  [13, 'ServiceUnavailable', failed('SERVICE_UNAVAILABLE', 'string')],
];

const preApprovalBody = (payer: string) => ({
  payer: { partyIdType: 'MSISDN', partyId: payer },
  payerCurrency: 'EUR',
  payerMessage: 'Monthly subscription',
  validityTime: 3600,
});

describe('MoMo pre-approval trigger rows (payer MSISDN = base + index)', () => {
  for (const [index, name, expected] of PRE_APPROVAL_ROWS) {
    it(`${index} ${name}`, async () => {
      await expectRow('collection', '/collection/v2_0/preapproval', preApprovalBody(msisdn(index)), expected);
    });
  }

  it('any other payer MSISDN: the pre-approval is approved', async () => {
    await expectRow('collection', '/collection/v2_0/preapproval', preApprovalBody(msisdn(12)), {
      callback: 'SUCCESSFUL',
    });
  });
});

for (const product of ['disbursement', 'remittance'] as const) {
  describe(`MoMo ${product} transfer trigger rows (payee MSISDN = base + index)`, () => {
    for (const [index, name, expected] of TRANSFER_ROWS) {
      it(`${index} ${name}`, async () => {
        await expectRow(product, `/${product}/v1_0/transfer`, transferBody(msisdn(index)), expected);
      });
    }

    it('any other payee MSISDN: the transfer succeeds', async () => {
      await expectRow(product, `/${product}/v1_0/transfer`, transferBody(msisdn(14)), {
        callback: 'SUCCESSFUL',
      });
    });
  });
}

/** MoMo Open API docs: "Account holder active (MSISDN) | NotFound, NotActive, NotAllowed, …, ServiceUnavailable". */
describe('MoMo account holder active trigger rows (MSISDN = base + index)', () => {
  async function active(index: number) {
    const token = await momoToken(sim);
    return call(sim, 'GET', `/collection/v1_0/accountholder/msisdn/${msisdn(index)}/active`, {
      headers: momoHeaders(token),
    });
  }
  async function basicUserInfo(index: number) {
    const token = await momoToken(sim);
    return call(sim, 'GET', `/collection/v1_0/accountholder/MSISDN/${msisdn(index)}/basicuserinfo`, {
      headers: momoHeaders(token),
    });
  }

  it('0 NotFound: active answers {result:false}; basic user info 404', async () => {
    const r = await active(0);
    const info = await basicUserInfo(0);

    expect(r.status).toBe(200);
    expect(r.json).toEqual({ result: false });
    expect(info.status).toBe(404);
  });

  it('1 NotActive: active answers {result:false}; basic user info says NOT_ACTIVE', async () => {
    const r = await active(1);
    const info = await basicUserInfo(1);

    expect(r.status).toBe(200);
    expect(r.json).toEqual({ result: false });
    expect(info.json.status).toBe('NOT_ACTIVE');
  });

  const REFUSALS: [number, string, number, string][] = [
    [2, 'NotAllowed', 500, 'NOT_ALLOWED'],
    [3, 'NotAllowedTargetEnvironment', 500, 'NOT_ALLOWED_TARGET_ENVIRONMENT'],
    [4, 'InternalProcessingError', 500, 'INTERNAL_PROCESSING_ERROR'],
    [5, 'ServiceUnavailable', 503, 'SERVICE_UNAVAILABLE'],
  ];
  for (const [index, name, status, code] of REFUSALS) {
    it(`${index} ${name}: active answers ${status} ${code}`, async () => {
      const r = await active(index);

      expect(r.status).toBe(status);
      expect(r.json.code).toBe(code);
    });
  }

  it('any other MSISDN: active answers {result:true}', async () => {
    const r = await active(6);

    expect(r.json).toEqual({ result: true });
  });
});
