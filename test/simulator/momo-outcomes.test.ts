import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../simulator/core/clock';
import { MOMO_SANDBOX_FAMILIES } from '../../simulator/momo/outcomes';
import type { Simulator } from '../../simulator/server';
import { call, parse, type Receiver, startReceiver, startSim } from './helpers';
import { create, momoHeaders, momoToken, msisdn, rtpBody } from './momo-helpers';

let sim: Simulator;
let rx: Receiver;
let token: string;

beforeAll(async () => {
  // timeScale 0.001: the 5-minute approval window is 300 ms.
  sim = await startSim({ timeScale: 0.001 });
  rx = await startReceiver();
  token = await momoToken(sim);
});
afterAll(async () => {
  await sim.close();
  await rx.close();
});

type Expect =
  | { callback: { status: string; reason?: string; format?: 'string' | 'object' } }
  | { sync: { status: number; code: string } };

/** What a real callback carries for each row of the request-to-pay family (index = MSISDN − base). */
const REQUEST_TO_PAY_ROWS: [string, Expect][] = [
  ['Failed', { callback: { status: 'FAILED', reason: 'INTERNAL_PROCESSING_ERROR', format: 'string' } }],
  ['Rejected', { callback: { status: 'FAILED', reason: 'APPROVAL_REJECTED', format: 'object' } }],
  ['Expired', { callback: { status: 'FAILED', reason: 'EXPIRED', format: 'string' } }],
  // MoMo Open API docs: the request stays PENDING; when the 5-minute approval window passes it is FAILED,
  // "for example COULD_NOT_PERFORM_TRANSACTION on timeout; callback if URL given". Nothing makes these succeed.
  ['Ongoing', { callback: { status: 'FAILED', reason: 'COULD_NOT_PERFORM_TRANSACTION', format: 'object' } }],
  ['Delayed', { callback: { status: 'FAILED', reason: 'COULD_NOT_PERFORM_TRANSACTION', format: 'string' } }],
  ['NotFound', { callback: { status: 'FAILED', reason: 'PAYER_NOT_FOUND', format: 'string' } }],
  [
    'PayeeNotAllowedToReceive',
    { callback: { status: 'FAILED', reason: 'PAYEE_NOT_ALLOWED_TO_RECEIVE', format: 'object' } },
  ],
  ['NotAllowed', { callback: { status: 'FAILED', reason: 'NOT_ALLOWED', format: 'string' } }],
  ['NotAllowedTargetEnvironment', { sync: { status: 500, code: 'NOT_ALLOWED_TARGET_ENVIRONMENT' } }],
  ['InvalidCallbackUrlHost', { sync: { status: 500, code: 'INVALID_CALLBACK_URL_HOST' } }],
  ['InvalidCurrency', { sync: { status: 500, code: 'INVALID_CURRENCY' } }],
  [
    'InternalProcessingError',
    { callback: { status: 'FAILED', reason: 'INTERNAL_PROCESSING_ERROR', format: 'object' } },
  ],
  ['ServiceUnavailable', { callback: { status: 'FAILED', reason: 'SERVICE_UNAVAILABLE', format: 'string' } }],
  [
    'CouldNotPerformTransaction',
    { callback: { status: 'FAILED', reason: 'COULD_NOT_PERFORM_TRANSACTION', format: 'object' } },
  ],
];

describe('MoMo sandbox outcomes of request to pay (MSISDN = base + index)', () => {
  it('lists the rows in the documented order', () => {
    expect(REQUEST_TO_PAY_ROWS.map(([name]) => name)).toEqual(MOMO_SANDBOX_FAMILIES.requesttopay);
  });

  REQUEST_TO_PAY_ROWS.forEach(([name, expected], index) => {
    it(`base+${index} (${name}) ${'sync' in expected ? `answers ${expected.sync.status} ${expected.sync.code}` : `ends ${expected.callback.status}${expected.callback.reason ? ` ${expected.callback.reason}` : ''}`}`, async () => {
      const path = `/cb/${name}`;
      const { ref, res } = await create(sim, token, '/collection/v1_0/requesttopay', rtpBody(msisdn(index)), {
        callbackUrl: `${rx.url}${path}`,
      });
      if ('sync' in expected) {
        expect(res.status).toBe(expected.sync.status);
        expect(res.json.code).toBe(expected.sync.code);
        const get = await call(sim, 'GET', `/collection/v1_0/requesttopay/${ref}`, {
          headers: momoHeaders(token),
        });
        expect(get.status).toBe(404);
        return;
      }
      expect(res.status).toBe(202);
      const [cb] = await rx.waitFor(1, (r) => r.path === path);
      const body = parse(cb!);
      expect(cb!.method).toBe('PUT');
      expect(body.status).toBe(expected.callback.status);
      const { reason, format } = expected.callback;
      if (!reason) {
        expect(body).not.toHaveProperty('reason');
        expect(body.financialTransactionId).toEqual(expect.any(String));
      } else {
        expect(body).not.toHaveProperty('financialTransactionId');
        expect(body.reason).toEqual(
          format === 'string' ? reason : { code: reason, message: expect.any(String) },
        );
      }
    });
  });

  it.each([
    [3, 'Ongoing'],
    [4, 'Delayed'],
  ])(
    'keeps base+%i (%s) PENDING without a reason and sends nothing until the approval window ends, then one FAILED callback',
    async (index, name) => {
      // The window is 5 minutes of provider time: 1.5 s at this time scale, counted from creation. The
      // simulator's clock moves only when the test moves it, so a slow machine cannot close the window early.
      const clock = new ManualClock();
      const slow = await startSim({ timeScale: 0.005, clock });
      try {
        const t = await momoToken(slow);
        const path = `/cb/${name}-window`;
        const { ref } = await create(slow, t, '/collection/v1_0/requesttopay', rtpBody(msisdn(index)), {
          callbackUrl: `${rx.url}${path}`,
        });
        await clock.advance(slow.options.approvalDelayMs); // the payer would have answered by now
        await clock.advance(1499 - slow.options.approvalDelayMs); // 1 ms before the window ends
        const get = await call(slow, 'GET', `/collection/v1_0/requesttopay/${ref}`, {
          headers: momoHeaders(t),
        });
        expect(get.json.status).toBe('PENDING');
        expect(get.json).not.toHaveProperty('reason');
        expect(rx.requests.filter((r) => r.path === path)).toHaveLength(0);
        await clock.advance(1);
        const [cb] = await rx.waitFor(1, (r) => r.path === path);
        const body = parse(cb!);
        expect(body.status).toBe('FAILED');
        const reason = body.reason as string | { code: string };
        expect(typeof reason === 'string' ? reason : reason.code).toBe('COULD_NOT_PERFORM_TRANSACTION');
        await slow.whenIdle();
        expect(rx.requests.filter((r) => r.path === path)).toHaveLength(1);
      } finally {
        await slow.close();
      }
    },
  );

  it('follows a configurable MSISDN base', async () => {
    const other = await startSim({ momo: { sandboxMsisdnBase: '256770000100' } });
    try {
      const t = await momoToken(other);
      const { ref } = await create(other, t, '/collection/v1_0/requesttopay', rtpBody('256770000101'));
      await other.whenIdle();
      const get = await call(other, 'GET', `/collection/v1_0/requesttopay/${ref}`, {
        headers: momoHeaders(t),
      });
      expect(get.json).toMatchObject({ status: 'FAILED', reason: { code: 'APPROVAL_REJECTED' } });
    } finally {
      await other.close();
    }
  });
});

describe('MoMo sandbox outcomes of transfer (payee MSISDN)', () => {
  const rows: [number, string, string][] = [
    [5, 'NotEnoughFunds', 'NOT_ENOUGH_FUNDS'],
    [6, 'PayerLimitReached', 'PAYER_LIMIT_REACHED'],
    [7, 'NotFound', 'PAYEE_NOT_FOUND'],
  ];
  for (const [index, name, code] of rows) {
    it(`base+${index} (${name}) fails the transfer with ${code}`, async () => {
      const t = await momoToken(sim, 'disbursement');
      const { ref } = await create(
        sim,
        t,
        '/disbursement/v1_0/transfer',
        {
          amount: '5',
          currency: 'EUR',
          externalId: 'x',
          payee: { partyIdType: 'MSISDN', partyId: msisdn(index) },
        },
        { product: 'disbursement' },
      );
      await sim.whenIdle();
      const get = await call(sim, 'GET', `/disbursement/v1_0/transfer/${ref}`, {
        headers: momoHeaders(t, 'disbursement'),
      });
      expect(get.json.status).toBe('FAILED');
      const reason = get.json.reason;
      expect(typeof reason === 'string' ? reason : reason.code).toBe(code);
    });
  }
});
