/**
 * The contract's `providerCode` is the provider's own code as sent: Daraja's result code is canonicalised
 * (trimmed, upper case) only to look it up in the mapping table, never in what the relay publishes.
 */
import { describe, expect, it } from 'vitest';
import { normalizeStk } from '../../../shared/providers/daraja/normalize';
import { stkCallbackSchema } from '../../../shared/providers/daraja/schema';

const stk = (ResultCode: string | number) =>
  stkCallbackSchema.parse({
    Body: {
      stkCallback: {
        MerchantRequestID: '29115-34620561-3',
        CheckoutRequestID: 'ws_CO_191220191020363927',
        ResultCode,
        ResultDesc: 'Invalid PartyB or TransactionType',
      },
    },
  });

describe("Daraja's providerCode", () => {
  it('is the ResultCode as sent, while the lookup still finds its meaning whatever its case', () => {
    const lower = normalizeStk('demo', 'KES', stk('sfc_ic0003'));
    const upper = normalizeStk('demo', 'KES', stk('SFC_IC0003'));
    const unknown = normalizeStk('demo', 'KES', stk('zz'));

    expect(lower.reason).toMatchObject({ code: 'PAYEE_NOT_FOUND', providerCode: 'sfc_ic0003' });
    expect(upper.reason).toMatchObject({ code: 'PAYEE_NOT_FOUND', providerCode: 'SFC_IC0003' });
    expect(unknown.reason?.providerCode).toBe('zz');
  });
});
