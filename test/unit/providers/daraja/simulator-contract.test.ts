import { describe, expect, it } from 'vitest';
import type { ReasonCode } from '../../../../shared/domain/reasons';
import { normalizeB2cResult, normalizeStk } from '../../../../shared/providers/daraja/normalize';
import { resultSchema, stkCallbackSchema } from '../../../../shared/providers/daraja/schema';
import { B2C_OUTCOMES, STK_OUTCOMES } from '../../../../simulator/daraja/outcomes';

/** The reason the relay gives each failure the simulator sends; written by hand from the Daraja API documentation. */
const STK_REASONS: Record<string, ReasonCode> = {
  '1': 'INSUFFICIENT_FUNDS',
  '17': 'DUPLICATE',
  '1001': 'SUBSCRIBER_BUSY',
  '1019': 'TIMED_OUT',
  '1025': 'PROVIDER_ERROR',
  '1032': 'REJECTED_BY_CUSTOMER',
  '1037': 'UNREACHABLE',
  // On STK the customer enters the PIN.
  '2001': 'WRONG_PIN',
  // Provider notes: wrong PartyB and a locked security credential.
  '2028': 'NOT_ALLOWED',
  '8006': 'NOT_ALLOWED',
  '9999': 'PROVIDER_ERROR',
  SFC_IC0003: 'NOT_ALLOWED',
};

const B2C_REASONS: Record<string, ReasonCode> = {
  // On a B2C result the initiator is the partner's API operator: its credential, not a PIN.
  '2001': 'INVALID_INITIATOR',
  '1': 'INSUFFICIENT_FUNDS',
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
