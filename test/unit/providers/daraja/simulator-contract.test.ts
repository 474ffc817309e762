import { describe, expect, it } from 'vitest';
import type { ReasonCode } from '../../../../shared/domain/reasons';
import { normalizeB2cResult, normalizeStk } from '../../../../shared/providers/daraja/normalize';
import { resultSchema, stkCallbackSchema } from '../../../../shared/providers/daraja/schema';
import { B2C_OUTCOMES, STK_OUTCOMES } from '../../../../simulator/daraja/outcomes';

/** The reason the relay gives each failure the simulator sends; written by hand from the Daraja API documentation. */
const STK_REASONS: Record<string, ReasonCode> = {
  '1': 'INSUFFICIENT_FUNDS',
  '2': 'AMOUNT_INVALID',
  '3': 'LIMIT_REACHED',
  '4': 'LIMIT_REACHED',
  '8': 'LIMIT_REACHED',
  '17': 'DUPLICATE',
  '1001': 'SUBSCRIBER_BUSY',
  '1019': 'TIMED_OUT',
  // The docs' explanation: the prompt is over 182 characters (AccountReference too long).
  '1025': 'INVALID_REQUEST',
  '1032': 'REJECTED_BY_CUSTOMER',
  '1037': 'UNREACHABLE',
  // On STK the customer enters the PIN.
  '2001': 'WRONG_PIN',
  '2028': 'NOT_ALLOWED',
  // The customer's credential is locked ("contact Customer Care").
  '8006': 'NOT_ALLOWED',
  '9999': 'PROVIDER_ERROR',
  // "The operator does not exist": PartyB, the payee.
  SFC_IC0003: 'PAYEE_NOT_FOUND',
};

const B2C_REASONS: Record<string, ReasonCode> = {
  '1': 'INSUFFICIENT_FUNDS',
  '2': 'AMOUNT_INVALID',
  '3': 'LIMIT_REACHED',
  '4': 'LIMIT_REACHED',
  '8': 'LIMIT_REACHED',
  // The partner's own B2C short code is not active.
  '11': 'NOT_ALLOWED',
  '2006': 'NOT_ALLOWED',
  '2028': 'NOT_ALLOWED',
  // On a B2C result the initiator is the partner's API operator: its role, credential or lock, not a PIN.
  '21': 'INVALID_INITIATOR',
  '2001': 'INVALID_INITIATOR',
  '8006': 'INVALID_INITIATOR',
  // The customer (the payee) is not on M-PESA or not registered.
  '2040': 'PAYEE_NOT_FOUND',
  SFC_IC0003: 'PAYEE_NOT_FOUND',
};

describe('Daraja: the relay reads every failure the simulator sends', () => {
  it.each(STK_OUTCOMES.map((o) => [String(o.resultCode), o] as const))('STK ResultCode %s', (code, o) => {
    const body = stkCallbackSchema.parse({
      Body: {
        stkCallback: {
          MerchantRequestID: 'm-1',
          CheckoutRequestID: 'ws_CO_1',
          ResultCode: o.resultCode,
          ResultDesc: o.resultDesc,
        },
      },
    });
    const draft = normalizeStk('demo', 'KES', body);
    expect(draft.status).toBe('FAILED');
    expect(draft.reason).toMatchObject({ code: STK_REASONS[code], providerCode: code });
  });

  const failures = B2C_OUTCOMES.filter((o) => o.type === 'failure');
  it.each(failures.map((o) => [String(o.resultCode), o] as const))('B2C ResultCode %s', (code, o) => {
    const { Result } = resultSchema.parse({
      Result: {
        ResultType: 0,
        ResultCode: o.resultCode,
        ResultDesc: o.resultDesc,
        OriginatorConversationID: 'oc-1',
        ConversationID: 'AG_1',
        TransactionID: 'NLJ0000000',
      },
    });
    const draft = normalizeB2cResult('demo', 'KES', 'oc-1', Result);
    expect(draft.status).toBe('FAILED');
    expect(draft.reason).toMatchObject({ code: B2C_REASONS[code], providerCode: code });
  });
});
