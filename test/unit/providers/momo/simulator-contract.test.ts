import { describe, expect, it } from 'vitest';
import type { ReasonCode } from '../../../../shared/domain/reasons';
import type { TransactionStatus } from '../../../../shared/domain/status';
import { normalizeMomoCallback } from '../../../../shared/providers/momo/normalize';
import { momoCallbackSchema } from '../../../../shared/providers/momo/schema';
import {
  type MomoKind,
  type MomoStatus,
  type MomoTransaction,
  resultBody,
} from '../../../../simulator/momo/operations';
import {
  anyOutcomeBehaviour,
  MOMO_PAYEE_CANCELLATION,
  MOMO_SANDBOX_FAMILIES,
  type MomoFamily,
  type MomoOutcome,
  outcomeBehaviour,
} from '../../../../simulator/momo/outcomes';
import {
  MOMO_REFUND_TRIGGERS,
  referenceBehaviour,
  type ReferenceOutcome,
} from '../../../../simulator/momo/reference-triggers';

/**
 * What the relay makes of every callback the simulator sends for a sandbox outcome (MoMo Open API docs, base + index),
 * built with the simulator's own body renderer. Expectations are written by hand, per outcome.
 */
const REF = '6f1c2a9e-4b7d-4e2a-9c3b-1a2b3c4d5e6f';

type Expected =
  { callback: { status: TransactionStatus; reason?: ReasonCode } } | { noCallback: 'refused at creation' };

const notFound = (side: 'payer' | 'payee'): ReasonCode =>
  side === 'payer' ? 'PAYER_NOT_FOUND' : 'PAYEE_NOT_FOUND';

function expectedFor(outcome: MomoOutcome, side: 'payer' | 'payee'): Expected {
  const rows: Record<MomoOutcome, Expected> = {
    Success: { callback: { status: 'SUCCEEDED' } },
    Failed: { callback: { status: 'FAILED', reason: 'PROVIDER_ERROR' } },
    Rejected: { callback: { status: 'FAILED', reason: 'REJECTED_BY_CUSTOMER' } },
    Expired: { callback: { status: 'FAILED', reason: 'TIMED_OUT' } },
    // The approval window passes: COULD_NOT_PERFORM_TRANSACTION.
    Ongoing: { callback: { status: 'FAILED', reason: 'TIMED_OUT' } },
    Delayed: { callback: { status: 'FAILED', reason: 'TIMED_OUT' } },
    NotFound: { callback: { status: 'FAILED', reason: notFound(side) } },
    PayeeNotAllowedToReceive: { callback: { status: 'FAILED', reason: 'NOT_ALLOWED' } },
    NotAllowed: { callback: { status: 'FAILED', reason: 'NOT_ALLOWED' } },
    NotAllowedTargetEnvironment: { noCallback: 'refused at creation' },
    InvalidCallbackUrlHost: { noCallback: 'refused at creation' },
    InvalidCurrency: { noCallback: 'refused at creation' },
    InternalProcessingError: { callback: { status: 'FAILED', reason: 'PROVIDER_ERROR' } },
    ServiceUnavailable: { callback: { status: 'FAILED', reason: 'PROVIDER_ERROR' } },
    CouldNotPerformTransaction: { callback: { status: 'FAILED', reason: 'TIMED_OUT' } },
    NotEnoughFunds: { callback: { status: 'FAILED', reason: 'INSUFFICIENT_FUNDS' } },
    PayerLimitReached: { callback: { status: 'FAILED', reason: 'LIMIT_REACHED' } },
  };
  return rows[outcome];
}

const party = { partyIdType: 'MSISDN', partyId: '46733123450' };

/** The simulator's operations, by kind: which family table and whose MSISDN select the outcome. */
const KINDS: {
  kind: MomoKind;
  family: MomoFamily;
  side: 'payer' | 'payee';
  body: Record<string, unknown>;
}[] = [
  {
    kind: 'requesttopay',
    family: 'requesttopay',
    side: 'payer',
    body: { amount: '5', currency: 'EUR', externalId: 'x', payer: party },
  },
  {
    kind: 'requesttowithdraw',
    family: 'requesttopay',
    side: 'payer',
    body: { amount: '5', currency: 'EUR', payer: party },
  },
  {
    kind: 'invoice',
    family: 'requesttopay',
    side: 'payer',
    body: { externalId: 'x', amount: '5', currency: 'EUR', intendedPayer: party, payee: party },
  },
  {
    kind: 'payment',
    family: 'requesttopay',
    side: 'payer',
    body: { externalTransactionId: 'x', money: { amount: '5', currency: 'EUR' } },
  },
  {
    kind: 'preapproval',
    family: 'preapproval',
    side: 'payer',
    body: { payer: party, payerCurrency: 'EUR' },
  },
  {
    kind: 'transfer',
    family: 'transfer',
    side: 'payee',
    body: { amount: '5', currency: 'EUR', payee: party },
  },
  {
    kind: 'deposit',
    family: 'requesttopay',
    side: 'payee',
    body: { amount: '5', currency: 'EUR', payee: party },
  },
];

/** A simulator transaction in `status`, as its callback or status GET renders it. */
function simulatorBody(
  kind: MomoKind,
  body: Record<string, unknown>,
  status: MomoStatus,
  failure?: { code: string; message: string; format: 'string' | 'object' },
): Record<string, unknown> {
  const txn = {
    kind,
    referenceId: REF,
    body,
    status,
    reason: failure ? { code: failure.code, message: failure.message } : undefined,
    reasonFormat: failure?.format ?? 'object',
    financialTransactionId: status === 'SUCCESSFUL' ? '123456789' : undefined,
  } as unknown as MomoTransaction;
  // JSON round trip: undefined members disappear, as on the wire.
  return JSON.parse(JSON.stringify(resultBody(txn)));
}

function relayView(kind: MomoKind, body: Record<string, unknown>) {
  return normalizeMomoCallback('demo', kind, REF, momoCallbackSchema.parse(body));
}

describe('MoMo: the relay reads every sandbox outcome the simulator sends', () => {
  for (const { kind, family, side, body } of KINDS) {
    describe(`${kind} (${family} table, ${side} MSISDN)`, () => {
      it.each([...MOMO_SANDBOX_FAMILIES[family], 'Success' as const])('%s', (outcome) => {
        // Prepare: the simulator's behaviour for this outcome and the body it sends
        const behaviour = outcomeBehaviour(outcome, side);
        const expected = expectedFor(outcome, side);
        if (behaviour.type === 'sync-error') {
          expect(expected).toEqual({ noCallback: 'refused at creation' });
          return;
        }
        const sent =
          behaviour.type === 'success'
            ? simulatorBody(kind, body, 'SUCCESSFUL')
            : simulatorBody(kind, body, 'FAILED', behaviour);
        // Act
        const draft = relayView(kind, sent);
        // Assess
        expect('callback' in expected).toBe(true);
        if (!('callback' in expected)) return;
        expect(draft.status).toBe(expected.callback.status);
        expect(draft.reason?.code).toBe(expected.callback.reason);
        if (expected.callback.reason) expect(draft.reason?.providerCode).toEqual(expect.any(String));
      });
    });
  }

  it.each(['Ongoing', 'Delayed'] as const)(
    'reads %s while it waits (a status GET: PENDING, no reason) as PENDING without a reason',
    (outcome) => {
      expect(outcomeBehaviour(outcome, 'payer').type).toBe('unanswered');
      const draft = relayView('requesttopay', simulatorBody('requesttopay', KINDS[0]!.body, 'PENDING'));
      expect(draft).toMatchObject({ status: 'PENDING', reason: undefined });
    },
  );

  it('reads the VALIDATION_ERROR the simulator sends for a 129–160 character text as INVALID_REQUEST', () => {
    const sent = simulatorBody('requesttopay', KINDS[0]!.body, 'FAILED', {
      code: 'VALIDATION_ERROR',
      message: 'Payer message or note is longer than 128 characters.',
      format: 'object',
    });
    expect(relayView('requesttopay', sent).reason).toMatchObject({
      code: 'INVALID_REQUEST',
      providerCode: 'VALIDATION_ERROR',
    });
  });
});

describe('MoMo: the relay reads every refund trigger row the simulator sends (MoMo Open API docs, references 1–13)', () => {
  // Written by hand: what each refund row must become. Row 1 (NotFound) is the refunded transaction missing.
  const REFUND_ROWS: Record<ReferenceOutcome, Expected | undefined> = {
    NotFound: { callback: { status: 'FAILED', reason: 'ORIGINAL_NOT_FOUND' } },
    Failed: { callback: { status: 'FAILED', reason: 'PROVIDER_ERROR' } },
    Rejected: { callback: { status: 'FAILED', reason: 'REJECTED_BY_CUSTOMER' } },
    Expired: { callback: { status: 'FAILED', reason: 'TIMED_OUT' } },
    Ongoing: { callback: { status: 'FAILED', reason: 'TIMED_OUT' } },
    Delayed: { callback: { status: 'FAILED', reason: 'TIMED_OUT' } },
    NotAllowed: { callback: { status: 'FAILED', reason: 'NOT_ALLOWED' } },
    NotAllowedTargetEnvironment: { noCallback: 'refused at creation' },
    InvalidCallbackUrlHost: { noCallback: 'refused at creation' },
    InvalidCurrency: { noCallback: 'refused at creation' },
    InternalProcessingError: { callback: { status: 'FAILED', reason: 'PROVIDER_ERROR' } },
    ServiceUnavailable: { callback: { status: 'FAILED', reason: 'PROVIDER_ERROR' } },
    CouldNotPerformTransaction: { callback: { status: 'FAILED', reason: 'TIMED_OUT' } },
    // Not refund rows.
    Success: { callback: { status: 'SUCCEEDED' } },
    PayeeNotFound: undefined,
    PayeeNotAllowedToReceive: undefined,
    NotEnoughFunds: undefined,
    PayerLimitReached: undefined,
  };
  const refundBody = {
    amount: '5',
    currency: 'EUR',
    externalId: '1',
    referenceIdToRefund: '0b9f6c1e-2a3d-4e5f-8a7b-9c0d1e2f3a4b',
  };

  it.each(MOMO_REFUND_TRIGGERS.map((outcome, index) => [index + 1, outcome] as const))(
    'refund row %i (%s)',
    (_, outcome) => {
      // Prepare
      const behaviour = referenceBehaviour('refund', outcome);
      const expected = REFUND_ROWS[outcome];
      if (behaviour.type === 'sync-error') {
        expect(expected).toEqual({ noCallback: 'refused at creation' });
        return;
      }
      const sent =
        behaviour.type === 'success'
          ? simulatorBody('refund', refundBody, 'SUCCESSFUL')
          : simulatorBody('refund', refundBody, 'FAILED', behaviour);
      // Act
      const draft = relayView('refund', sent);
      // Assess
      expect(expected && 'callback' in expected ? expected.callback : expected).toEqual({
        status: draft.status,
        ...(draft.reason ? { reason: draft.reason.code } : {}),
      });
    },
  );
});

describe('MoMo: a cancellation the simulator produces reads as the payee cancelling', () => {
  it('reads CancelInvoice and X-Sim-Outcome TransactionCanceled alike: FAILED, CANCELLED_BY_PAYEE', () => {
    // Prepare: the simulator's one cancellation, on an invoice (errorReason) and on a request to pay (reason)
    const behaviour = anyOutcomeBehaviour('TransactionCanceled', 'payer');
    expect(behaviour).toMatchObject({ type: 'failed', code: MOMO_PAYEE_CANCELLATION.code });
    const invoice = simulatorBody('invoice', KINDS[2]!.body, 'FAILED', MOMO_PAYEE_CANCELLATION);
    const requestToPay = simulatorBody('requesttopay', KINDS[0]!.body, 'FAILED', MOMO_PAYEE_CANCELLATION);
    // Act
    const drafts = [relayView('invoice', invoice), relayView('requesttopay', requestToPay)];
    // Assess
    for (const draft of drafts) {
      expect(draft).toMatchObject({
        status: 'FAILED',
        reason: { code: 'CANCELLED_BY_PAYEE', providerCode: 'TRANSACTION_CANCELED' },
      });
    }
  });
});
