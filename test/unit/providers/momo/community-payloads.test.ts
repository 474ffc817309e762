import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { normalizeMomoCallback } from '../../../../shared/providers/momo/normalize';
import { momoCallbackSchema } from '../../../../shared/providers/momo/schema';
import { phoneFieldsOf } from '../../../../shared/providers/registry';
import { maskPhoneFieldsInText } from '../../../../shared/util/mask';

/*
 * The callbacks the Rust client momo.rs sends its own callback server to test it, byte for byte as its
 * script posts them (Bourse-numerique-d-afrique/momo.rs, momo-callback-server/test_manual_callbacks.sh,
 * commit 9aeba998c3eea3d3d0251d1f37a4390698b4cf17): a number with a leading "+", a failure reason as an
 * object, an invoice naming its `intendedPayer` and a `referenceId` that is no UUID (the relay's reference
 * is the one in the callback URL), a deposit with nothing but its id, status and financialTransactionId.
 */
const payloads = JSON.parse(
  readFileSync(join(import.meta.dirname, '../../../fixtures/momo/momo-rs-manual-callbacks.json'), 'utf8'),
) as Record<string, unknown>;
const REF = '3c1d6a0e-8f4b-4b7a-9e2d-5a6b7c8d9e0f';

const draftOf = (kind: string, name: string) =>
  normalizeMomoCallback('demo', kind, REF, momoCallbackSchema.parse(payloads[name]));

describe("momo.rs's test callbacks", () => {
  it('a request to pay paid by a "+256…" number: SUCCEEDED, its amount and payer read', () => {
    expect(draftOf('requesttopay', 'requesttopay-successful')).toMatchObject({
      key: { reference: REF },
      status: 'SUCCEEDED',
      reason: undefined,
      providerTransactionId: '12345678',
      externalId: 'test-payment-001',
      amount: { value: '100', currency: 'UGX' },
      party: { idType: 'MSISDN', id: '+256123456789' },
    });
  });

  it('a request to pay failed with a reason object: FAILED, PAYER_NOT_FOUND with its message', () => {
    expect(draftOf('requesttopay', 'requesttopay-failed')).toMatchObject({
      status: 'FAILED',
      reason: { code: 'PAYER_NOT_FOUND', message: 'Payer not found', providerCode: 'PAYER_NOT_FOUND' },
      amount: { value: '50', currency: 'UGX' },
    });
  });

  it('an invoice: SUCCEEDED, its intendedPayer the party, keyed by the URL’s reference, not its referenceId', () => {
    expect(draftOf('invoice', 'invoice-successful')).toMatchObject({
      key: { reference: REF },
      status: 'SUCCEEDED',
      externalId: 'invoice-ext-001',
      amount: { value: '200', currency: 'UGX' },
      party: { idType: 'MSISDN', id: '+256123456789' },
    });
  });

  it('a deposit with only its status and financialTransactionId: SUCCEEDED, no amount and no party claimed', () => {
    expect(draftOf('deposit', 'deposit-successful')).toMatchObject({
      status: 'SUCCEEDED',
      providerTransactionId: 'disbursement-tx-001',
      amount: undefined,
      party: undefined,
    });
  });

  it('shows every one of their numbers masked in a receipt body, the "+" form included', () => {
    // Act
    const shown = Object.values(payloads).map((body) =>
      maskPhoneFieldsInText(JSON.stringify(body), phoneFieldsOf('momo')),
    );
    // Assess
    expect(shown.join('\n')).not.toContain('256123456789');
    expect(shown[0]).toContain('"partyId":"2561*****789"');
  });
});
